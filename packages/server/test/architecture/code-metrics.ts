import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './import-graph.js';

function walk(file: string, visit: (node: ts.Node) => void): void {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const each = (node: ts.Node): void => {
        visit(node);
        ts.forEachChild(node, each);
    };
    each(source);
}

/** Type assertions (`x as T`, `<T>x`) in the non-test files under `root`; `as const` is not one. */
export function typeAssertions(root: string): string[] {
    const found: string[] = [];
    for (const file of sourceFiles(root)) {
        walk(file, (node) => {
            const isConst = ts.isAsExpression(node) && ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';
            if ((ts.isAsExpression(node) && !isConst) || ts.isTypeAssertionExpression(node)) {
                const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart());
                found.push(`${relative(root, file)}:${line + 1}`);
            }
        });
    }
    return found;
}

const STATEMENT_STARTS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);

/** Kysely statements (`db.selectFrom(…)` and the other query starts) per non-test file under `root`. */
export function queryStatements(root: string): string[] {
    const found: string[] = [];
    for (const file of sourceFiles(root)) {
        walk(file, (node) => {
            if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && STATEMENT_STARTS.has(node.expression.name.text)) {
                const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart());
                found.push(`${relative(root, file)}:${line + 1}`);
            }
        });
    }
    return found;
}
