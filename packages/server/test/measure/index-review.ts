/*
 * Fewer database round trips on the hot paths, the index review: every secondary index of the tables each token writes
 * (auth_sessions, auth_session_tokens, auth_authorization_codes) beside the query that uses it,
 * proven with EXPLAIN on PostgreSQL over a seeded database (realms, clients, users, client and
 * browser sessions with their application sessions, refresh tokens, codes; ANALYZEd). Each query
 * is the SQL the storage module named beside it sends (foreign-key cascades: the statement
 * PostgreSQL's referential-integrity trigger runs). Prints the table docs/indexes.md holds and
 * exits 1 when a plan does not use its index.
 *
 *   TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test \
 *     node --conditions=source --import tsx packages/server/test/measure/index-review.ts
 */
import { CompiledQuery, sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase } from '../databases.js';

interface Use {
    index: string;
    query: string;
    where: string;
    sql: string;
    parameters?: unknown[];
}

const database = await createTestDatabase('postgres');
const db = database.db;
const run = (text: string) => sql.raw(text).execute(db);
let failed = false;
try {
    await migrateToLatest(database);
    // 20 realms, 1,000 clients, 5,000 users; 40,000 client_credentials sessions (no user, no parent),
    // 6,000 browser sessions and 6,000 application sessions signed in through them, a tenth revoked,
    // expiries spread over ±30 days; a refresh token per application session; 5,000 codes
    await run(`insert into auth_realms (id, name, built_in, created_at, updated_at)
        select gen_random_uuid(), 'realm-' || n, false, now(), now() from generate_series(1, 20) n`);
    await run(`insert into auth_clients (id, name, active, built_in, secret_hashed, secret_encrypted, realm_id, created_at, updated_at)
        select gen_random_uuid(), 'client-' || n, true, false, false, false, r.id, now(), now()
        from generate_series(1, 1000) n join (select id, row_number() over () - 1 as i from auth_realms where name like 'realm-%') r on r.i = n % 20`);
    await run(`insert into auth_users (id, name, name_locked, email_verified, active, realm_id, created_at, updated_at)
        select gen_random_uuid(), 'user-' || n, true, false, true, r.id, now(), now()
        from generate_series(1, 5000) n join (select id, row_number() over () - 1 as i from auth_realms where name like 'realm-%') r on r.i = n % 20`);
    const stamps = `now() + ((random() * 60 - 30) || ' days')::interval, case when random() < 0.1 then now() end, now(), now()`;
    await run(`insert into auth_sessions (id, sub, sub_kind, user_id, client_id, realm_id, seen_at, expires_at, revoked_at, created_at, updated_at)
        select gen_random_uuid(), c.id, 'client', null, c.id, c.realm_id, now(), ${stamps}
        from generate_series(1, 40) k cross join auth_clients c where c.name like 'client-%'`);
    await run(`insert into auth_sessions (id, sub, sub_kind, user_id, client_id, realm_id, seen_at, expires_at, revoked_at, created_at, updated_at, cookie_digest)
        select gen_random_uuid(), u.id, 'user', u.id, null, u.realm_id, now(), ${stamps}, md5(u.id::text)
        from generate_series(1, 1) k cross join (select * from auth_users where name like 'user-%' order by name limit 6000) u`);
    await run(`insert into auth_sessions (id, sub, sub_kind, user_id, client_id, realm_id, seen_at, expires_at, revoked_at, created_at, updated_at, parent_id)
        select gen_random_uuid(), b.sub, 'user', b.sub, (select id from auth_clients c where c.realm_id = b.realm_id limit 1), b.realm_id, now(), ${stamps}, b.id
        from auth_sessions b where b.cookie_digest is not null`);
    await run(`insert into auth_session_tokens (id, kind, session_id, expires_at, created_at)
        select gen_random_uuid(), 'refresh_token', s.id, s.expires_at, now() from auth_sessions s where s.parent_id is not null`);
    await run(`insert into auth_authorization_codes (id, code_digest, realm_id, client_id, user_id, session_id, redirect_uri, scope, auth_time, expires_at, created_at)
        select gen_random_uuid(), md5(s.id::text) || md5(s.sub::text), s.realm_id, s.client_id, s.user_id, s.parent_id, 'https://app.example/cb', 'openid', now(),
            now() + ((random() * 20 - 10) || ' minutes')::interval, now()
        from auth_sessions s where s.parent_id is not null limit 5000`);
    await run('analyze');

    const one = async (text: string): Promise<string> => String((await sql.raw(text).execute(db)).rows.map((row) => Object.values(row as object)[0])[0]);
    const realm = await one(`select realm_id from auth_clients where name = 'client-7'`);
    const client = await one(`select id from auth_clients where name = 'client-7'`);
    const user = await one(`select user_id from auth_sessions where parent_id is not null limit 1`);
    const browser = await one(`select parent_id from auth_sessions where parent_id is not null limit 1`);
    const session = await one(`select id from auth_sessions where parent_id is not null limit 1`);
    const jti = await one(`select id from auth_session_tokens limit 1`);
    const digest = await one(`select code_digest from auth_authorization_codes limit 1`);
    const now = new Date();
    const revokedColumns = 'returning id, sub, sub_kind, client_id, realm_id, expires_at';

    const uses: Use[] = [
        // auth_sessions
        { index: 'auth_sessions_pkey', query: 'findTokenState: a bearer\'s session and its client', where: 'storage/sessions.ts',
            sql: `select s.sub, s.realm_id, s.client_id, s.expires_at, s.revoked_at, c.active from auth_sessions s left join auth_clients c on c.id = s.client_id where s.id = $1`, parameters: [session] },
        { index: 'auth_sessions_realm_id_idx', query: 'GET /realms/:id/sessions: the page and its total', where: 'storage/resource/list.ts',
            sql: `select *, count(*) over () as __list_total from auth_sessions where realm_id = $1 order by created_at desc, id limit 50`, parameters: [realm] },
        { index: 'auth_sessions_realm_id_idx', query: 'DELETE /realms/:id: foreign-key cascade', where: 'FK auth_sessions.realm_id',
            sql: `delete from only auth_sessions where $1 = realm_id`, parameters: [realm] },
        { index: 'auth_sessions_user_id_idx', query: 'endOfSubject (password reset / change, deactivation) of a user', where: 'storage/sessions.ts revokeSessionsOfSubject',
            sql: `update auth_sessions set revoked_at = $1, updated_at = $1 where user_id = $2 and sub = $2 and sub_kind = 'user' and id <> $3 and revoked_at is null ${revokedColumns}`, parameters: [now, user, session] },
        { index: 'auth_sessions_user_id_idx', query: 'DELETE /users/:id: foreign-key cascade', where: 'FK auth_sessions.user_id',
            sql: `delete from only auth_sessions where $1 = user_id`, parameters: [user] },
        { index: 'auth_sessions_client_id_idx', query: 'endOfClient (client deactivated or deleted, secret rotated)', where: 'storage/sessions.ts revokeSessionsOfClient',
            sql: `update auth_sessions set revoked_at = $1, updated_at = $1 where client_id = $2 and revoked_at is null ${revokedColumns}`, parameters: [now, client] },
        { index: 'auth_sessions_client_id_idx', query: 'DELETE /clients/:id: foreign-key cascade', where: 'FK auth_sessions.client_id',
            sql: `delete from only auth_sessions where $1 = client_id`, parameters: [client] },
        { index: 'auth_sessions_parent_id_idx', query: 'revocation cascade: the application sessions of ended browser sessions', where: 'storage/session-revocation.ts',
            sql: `update auth_sessions set revoked_at = $1, updated_at = $1 where parent_id in ($2) and revoked_at is null ${revokedColumns}`, parameters: [now, browser] },
        { index: 'auth_sessions_expires_at_idx', query: 'worker sweep: expired sessions without a live child', where: 'storage/sweeps.ts deleteExpiredSessionsBatch',
            sql: `select s.id from auth_sessions s where s.expires_at < $1 and not exists (select child.id from auth_sessions child where child.parent_id = s.id and child.expires_at >= $1) limit 500`,
            parameters: [new Date(now.getTime() - 29.5 * 86_400_000)] },
        { index: 'auth_sessions_parent_id_idx', query: 'worker sweep: the live-child test of each expired session', where: 'storage/sweeps.ts deleteExpiredSessionsBatch',
            sql: `select s.id from auth_sessions s where s.expires_at < $1 and not exists (select child.id from auth_sessions child where child.parent_id = s.id and child.expires_at >= $1) limit 500`,
            parameters: [new Date(now.getTime() - 29.5 * 86_400_000)] },
        // auth_session_tokens
        { index: 'auth_session_tokens_pkey', query: 'refresh grant: spend the refresh token', where: 'storage/session-tokens.ts',
            sql: `delete from auth_session_tokens where id = $1 and kind = 'refresh_token'`, parameters: [jti] },
        { index: 'auth_session_tokens_session_id_idx', query: 'DELETE /sessions: the refresh tokens of the ended sessions', where: 'storage/sessions-admin.ts deleteSessionTokensWhere',
            sql: `delete from auth_session_tokens where session_id in (select id from auth_sessions where user_id = $1 and sub = $1 and sub_kind = 'user')`, parameters: [user] },
        { index: 'auth_session_tokens_session_id_idx', query: 'a session deleted by the sweep: foreign-key cascade', where: 'FK auth_session_tokens.session_id',
            sql: `delete from only auth_session_tokens where $1 = session_id`, parameters: [session] },
        { index: 'auth_session_tokens_expires_at_idx', query: 'worker sweep: expired refresh tokens', where: 'storage/sweeps.ts deleteExpiredBatch',
            sql: `select id from auth_session_tokens where expires_at < $1 limit 500`, parameters: [new Date(now.getTime() - 29.5 * 86_400_000)] },
        // auth_authorization_codes
        { index: 'auth_authorization_codes_code_digest_unique', query: 'authorization_code grant: the code by its digest', where: 'storage/authorization-code-redemption.ts',
            sql: `select * from auth_authorization_codes where code_digest = $1`, parameters: [digest] },
        { index: 'auth_authorization_codes_session_id_idx', query: 'a session deleted by the sweep: foreign-key cascade', where: 'FK auth_authorization_codes.session_id',
            sql: `delete from only auth_authorization_codes where $1 = session_id`, parameters: [browser] },
        { index: 'auth_authorization_codes_expires_at_idx', query: 'worker sweep: expired codes', where: 'storage/sweeps.ts deleteExpiredBatch',
            sql: `select id from auth_authorization_codes where expires_at < $1 limit 500`, parameters: [new Date(now.getTime() - 9.5 * 60_000)] },
    ];

    const counted = [];
    for (const table of ['auth_sessions', 'auth_session_tokens', 'auth_authorization_codes']) counted.push(`${table} ${await one(`select count(*) from ${table}`)}`);
    // the sweeps' cutoffs match what a regularly swept table holds past its expiry: a few percent of the rows
    console.log(`rows: ${counted.join(', ')}\n`);
    console.log('| index | query that uses it | where | plan node |');
    console.log('|---|---|---|---|');
    for (const use of uses) {
        // inside a rolled-back transaction: EXPLAIN of a write plans it without running it, but stay safe
        const plan = await db.transaction().execute(async (trx) => {
            const explained = await trx.executeQuery(CompiledQuery.raw(`explain ${use.sql}`, use.parameters ?? []));
            return explained.rows.map((row) => String((row as Record<string, unknown>)['QUERY PLAN'])).join('\n');
        });
        const node = plan.split('\n').find((line) => line.includes(` ${use.index}`))?.trim().replace(/\s+\(cost.*$/, '').replace(/^->\s*/, '');
        if (!node) failed = true;
        console.log(`| \`${use.index}\` | ${use.query} | ${use.where} | ${node ? `\`${node}\`` : `NOT USED:\n${plan}`} |`);
    }
} finally {
    await database.drop();
}
process.exit(failed ? 1 : 0);
