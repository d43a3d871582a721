/**
 * What the soak records (bench/soak/run.ts): every request it sent, the faults it injected and
 * the acknowledgements it received. The invariant checks (invariants.ts) and the report
 * (report.ts) read only these, so a recorded log can be replayed through them in a test.
 */

export type Operation =
    | 'sign-in' | 'code-mint' | 'client-credentials' | 'introspection' | 'refresh' | 'bearer-read' | 'admin-write'
    | 'revocation' | 'probe';

/** Whose token a request presented: what a revocation may name. */
export interface TokenOwner {
    userId?: string;
    sessionId?: string;
    /** the signing key of the access token presented (absent for a refresh token: it is not signed) */
    kid?: string;
}

export interface RequestRecord {
    operation: Operation;
    /** ms since the soak began */
    sentAt: number;
    answeredAt: number;
    /** HTTP status; 0 when no answer arrived (connection refused, reset, timed out) */
    status: number;
    /** a replica addressed directly (the probes after an acknowledgement); through HAProxy otherwise */
    replica?: string;
    /** the token presented, for the revocation invariant */
    token?: TokenOwner;
    /** the server honoured the token: a 2xx on a bearer route or a refresh, `active: true` at introspection */
    accepted?: boolean;
    /** refresh with rotation (RFC 9700 §4.14.2): the token sent and its family (the session) */
    refresh?: { token: string; family: string; replay: boolean };
}

export type RevocationKind = 'user-deactivated' | 'session-revoked' | 'key-deleted';

export interface Revocation {
    kind: RevocationKind;
    /** the user id, session id or key id (kid) */
    id: string;
    /** when the answer that acknowledged it arrived */
    acknowledgedAt: number;
}

export interface FaultWindow {
    name: 'rolling-restart' | 'kill' | 'redis-restart' | 'db-connections-terminated' | 'revocations';
    start: number;
    end: number;
}

export interface AcknowledgedWrite {
    collection: string;
    id: string;
    acknowledgedAt: number;
}

export interface Phase {
    name: string;
    start: number;
    end: number;
}

export interface SoakLog {
    requests: RequestRecord[];
    faults: FaultWindow[];
    revocations: Revocation[];
    writes: AcknowledgedWrite[];
    /** ids of the acknowledged writes found in the database after the load */
    found: ReadonlySet<string>;
    phases: Phase[];
}

/** No answer, or an answer of 500 and above: what a client would count as the service failing. */
export const failed = (record: RequestRecord): boolean => record.status === 0 || record.status >= 500;
