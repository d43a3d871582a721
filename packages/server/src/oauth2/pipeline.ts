/**
 * A protocol endpoint as an ordered list of small named steps over one request state (DESIGN.md
 * habit 2; node-oidc-provider `lib/actions/token.js`). The list is cut in two at caller
 * authentication: the transport runs `authenticate`, charges the request to the caller it learnt
 * (spec Limits: the budget of the identity that proved itself, else the source address), and only
 * then runs `handle` — so no callback from inside the endpoint reaches the transport.
 */

/** One named step: it reads and completes the request state, or throws the protocol error. */
export interface Step<State> {
    readonly name: string;
    run(state: State): void | Promise<void>;
}

export function step<State>(name: string, run: (state: State) => void | Promise<void>): Step<State> {
    return { name, run };
}

/**
 * Whom a protocol request is charged to once its caller is known (spec Limits): the client or
 * user that proved its credentials, its source address (`address`: no caller proved anything), or
 * — `on-finish` — nobody here, leaving it to the transport's end-of-request charge of the address
 * (a caller that authenticated with its own bearer token at introspection).
 */
export type Charge = { kind: 'user' | 'client'; id: string } | 'address' | 'on-finish';

export interface ProtocolEndpoint<Input, State, Output> {
    /** the steps up to caller authentication; whom to charge, and the state `handle` continues from */
    authenticate(input: Input): Promise<{ charge: Charge; state: State }>;
    /** the remaining steps, once the request was charged */
    handle(state: State): Promise<Output>;
    /** the step names in order, for documentation and tests */
    readonly stepNames: { authenticate: readonly string[]; handle: readonly string[] };
}

async function runSteps<State>(steps: readonly Step<State>[], state: State): Promise<void> {
    for (const each of steps) await each.run(state);
}

export function protocolEndpoint<Input, State, Output>(definition: {
    start(input: Input): State;
    authenticate: readonly Step<State>[];
    charge(state: State): Charge;
    handle: readonly Step<State>[];
    answer(state: State): Output;
}): ProtocolEndpoint<Input, State, Output> {
    return {
        async authenticate(input) {
            const state = definition.start(input);
            await runSteps(definition.authenticate, state);
            return { charge: definition.charge(state), state };
        },
        async handle(state) {
            await runSteps(definition.handle, state);
            return definition.answer(state);
        },
        stepNames: { authenticate: definition.authenticate.map((each) => each.name), handle: definition.handle.map((each) => each.name) },
    };
}

/** The value a previous step set; a step list in the wrong order is a programming error. */
export function required<T>(value: T | null | undefined, what: string): T {
    if (value === null || value === undefined) throw new Error(`protocol pipeline: ${what} is not set by an earlier step`);
    return value;
}
