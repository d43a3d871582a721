/**
 * A comment says why, and cites the RFC or spec rule it follows: a tracker number (the word issue
 * or task followed by a number) names an entry a reader of the code cannot see, and means nothing
 * once the tracker moves on.
 */
const TRACKER_REFERENCE = /\b(?:issue|task)s?\s*#?\d+/i;

/** @type {import('eslint').Rule.RuleModule} */
export const noTrackerReferences = {
    meta: {
        type: 'suggestion',
        docs: { description: 'disallow tracker numbers (issue or task followed by a number) in comments' },
        schema: [],
        messages: {
            trackerReference:
                'A comment cites "{{reference}}": say the rule, RFC or spec section it stands for instead of a tracker number.',
        },
    },
    create(context) {
        return {
            Program() {
                for (const comment of context.sourceCode.getAllComments()) {
                    const match = TRACKER_REFERENCE.exec(comment.value);
                    if (match) context.report({ loc: comment.loc, messageId: 'trackerReference', data: { reference: match[0] } });
                }
            },
        };
    },
};

/** The project's local rules, as an ESLint plugin (eslint.config.js registers it as `realmgate`). */
export default { rules: { 'no-tracker-references': noTrackerReferences } };
