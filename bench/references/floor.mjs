/**
 * A floor: the work one protocol answer cannot skip, and nothing else, on the same database
 * engine and driver as the Realmgate server it is compared with. Plain `node:http` (no framework,
 * no routing, no validation library), the server's driver settings (SQLite pragmas and a prepared
 * statement reused; a `pg` pool of the server's default size with named prepared statements; a
 * mysql2 pool queried as Kysely queries it), ES256 with `node:crypto`. One process per kind:
 *
 * - token       Basic checked against a constant (constant-time), the form parsed, one INSERT of
 *               a session row, one ES256 signature (RFC 6749 §4.4 client_credentials answer)
 * - introspect  Basic checked, the form parsed, one ES256 verification, one SELECT of the session
 *               row by primary key (RFC 7662 §2.2 answer)
 * - bearer      one ES256 verification of the bearer (RFC 6750 §2.1), one SELECT of the user row by
 *               primary key, a user JSON
 * - redeem      the form parsed, one UPDATE spending a code row (RFC 6749 §4.1.2: single use), one
 *               INSERT of a session row, three ES256 signatures (access, refresh, ID token)
 * - refresh     the form parsed, one UPDATE rotating a refresh row (RFC 9700 §4.14.2), two ES256
 *               signatures (access, refresh)
 *
 * Environment: FLOOR (the kind), PORT, DB_TYPE (sqlite | postgres | mysql), DB_URL (postgres,
 * mysql) or SQLITE_PATH, DB_POOL_SIZE (the server's default, 10), FLOOR_CLIENT_ID and
 * FLOOR_CLIENT_SECRET (the Basic credentials). Besides the floor itself it answers, off the
 * measured path, `GET /floor/fixture` (its bearer and session: ready once they exist) and
 * `POST /floor/stock` (unspent codes for the next load, inserted in one statement).
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, timingSafeEqual, verify } from 'node:crypto';
import { createServer } from 'node:http';

const KIND = process.env.FLOOR;
const KINDS = ['token', 'introspect', 'bearer', 'redeem', 'refresh'];
if (!KINDS.includes(KIND)) throw new Error(`FLOOR must be one of ${KINDS.join(', ')}`);
const DB_TYPE = process.env.DB_TYPE ?? 'sqlite';
const POOL_SIZE = Number(process.env.DB_POOL_SIZE ?? 10);
const PORT = Number(process.env.PORT);
const ISSUER = `http://127.0.0.1:${PORT}/realms/bench`;
const ACCESS_SECONDS = 900;
/** the fixture bearer outlives any run, as the bench's Realmgate bearers do */
const FIXTURE_SECONDS = 6 * 3600;
/** refresh rows the rotations go round: enough that two connections never race for one */
const REFRESH_ROWS = 1_000;

const realm = { id: randomUUID(), name: 'bench' };
const client = { id: process.env.FLOOR_CLIENT_ID ?? randomUUID(), secret: process.env.FLOOR_CLIENT_SECRET ?? randomBytes(32).toString('base64url') };
const expectedBasic = Buffer.from(`Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`);

// ---- ES256 (RFC 7518 §3.4: the signature is R || S, 64 bytes: ieee-p1363) ----

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const KID = 'floor';
const b64url = (value) => Buffer.from(value).toString('base64url');
const HEADER = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: KID }));

function signJwt(claims) {
    const input = `${HEADER}.${b64url(JSON.stringify(claims))}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** The claims of a token this floor signed, or null: signature, then expiry (RFC 7519 §4.1.4). */
function verifyJwt(token) {
    if (typeof token !== 'string') return null;
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const input = `${parts[0]}.${parts[1]}`;
    if (!verify('sha256', Buffer.from(input), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'))) return null;
    let claims;
    try {
        claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
        return null;
    }
    return typeof claims === 'object' && claims !== null && claims.exp > Date.now() / 1000 ? claims : null;
}

/** The claims of a Realmgate access or refresh token (API.md §4). */
function tokenClaims(subject, sessionId, kind, seconds, clientId) {
    const iat = Math.floor(Date.now() / 1000);
    return {
        iss: ISSUER, sub: subject.id, sub_kind: subject.kind, kind, realm_id: realm.id, realm_name: realm.name,
        ...(clientId ? { client_id: clientId } : {}), scope: subject.scope, session_id: sessionId, jti: randomUUID(), iat, exp: iat + seconds,
    };
}

// ---- the database, as the server's driver settings have it ----

/** `?` placeholders, numbered for PostgreSQL */
const numbered = (text) => {
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
};

async function openDatabase() {
    if (DB_TYPE === 'sqlite') {
        const { default: Database } = await import('better-sqlite3');
        const db = new Database(process.env.SQLITE_PATH);
        // the server's pragmas (packages/server/src/db/connect.ts)
        db.pragma('journal_mode = WAL');
        db.pragma('foreign_keys = ON');
        db.pragma('busy_timeout = 5000');
        db.pragma('synchronous = NORMAL');
        const statements = new Map();
        const prepared = (text) => {
            let statement = statements.get(text);
            if (!statement) statements.set(text, (statement = db.prepare(text)));
            return statement;
        };
        return {
            timestamp: (date) => date.toISOString(),
            timestampType: 'text',
            exec: async (text) => db.exec(text),
            run: async (_name, text, values) => prepared(text).run(...values).changes,
            get: async (_name, text, values) => prepared(text).get(...values),
        };
    }
    if (DB_TYPE === 'postgres') {
        const { default: pg } = await import('pg');
        const url = new URL(process.env.DB_URL);
        // the server pins its sessions to UTC the same way (db/utc-pin.ts)
        url.searchParams.set('options', '-c TimeZone=UTC');
        const pool = new pg.Pool({ connectionString: url.toString(), max: POOL_SIZE });
        pool.on('error', () => undefined);
        return {
            timestamp: (date) => date,
            timestampType: 'timestamptz',
            exec: async (text) => void await pool.query(text),
            // named: parsed and planned once per connection, as the server's hot statements are (db/named-statements.ts)
            run: async (name, text, values) => (await pool.query({ name, text: numbered(text), values })).rowCount,
            get: async (name, text, values) => (await pool.query({ name, text: numbered(text), values })).rows[0],
        };
    }
    if (DB_TYPE === 'mysql') {
        const { default: mysql } = await import('mysql2/promise');
        const pool = mysql.createPool({ uri: process.env.DB_URL, timezone: 'Z', dateStrings: false, supportBigNumbers: true, connectionLimit: POOL_SIZE });
        return {
            timestamp: (date) => date,
            timestampType: 'datetime(3)',
            exec: async (text) => void await pool.query(text),
            // Kysely's MySQL driver sends `query` (text protocol), so the floor does too
            run: async (_name, text, values) => (await pool.query(text, values))[0].affectedRows,
            get: async (_name, text, values) => (await pool.query(text, values))[0][0],
        };
    }
    throw new Error(`unknown DB_TYPE ${DB_TYPE}`);
}

const db = await openDatabase();
const T = db.timestampType;
const ID = 'varchar(36)';
const HASH = 'varchar(64)';
// the column shapes of auth_users, auth_sessions, auth_authorization_codes and auth_session_tokens
for (const table of [
    `floor_users (id ${ID} primary key, realm_id ${ID} not null, name varchar(255) not null, display_name varchar(255), email varchar(255), email_verified boolean not null, active boolean not null, created_at ${T} not null, updated_at ${T} not null)`,
    `floor_sessions (id ${ID} primary key, sub ${ID} not null, sub_kind varchar(16) not null, user_id ${ID}, client_id ${ID}, realm_id ${ID} not null, ip_address varchar(64), user_agent text, expires_at ${T} not null, revoked_at ${T}, cookie_digest ${HASH}, created_at ${T} not null, updated_at ${T} not null)`,
    `floor_codes (id ${ID} primary key, code_digest ${HASH} not null, realm_id ${ID} not null, client_id ${ID} not null, user_id ${ID} not null, session_id ${ID} not null, redirect_uri text not null, scope text not null, expires_at ${T} not null, used_at ${T}, created_at ${T} not null)`,
    `floor_refresh (id ${ID} primary key, session_id ${ID} not null, realm_id ${ID} not null, user_id ${ID} not null, client_id ${ID}, token_hash ${HASH} not null, expires_at ${T} not null, created_at ${T} not null, updated_at ${T} not null)`,
]) await db.exec(`create table if not exists ${table}`);

const INSERT_SESSION = 'insert into floor_sessions (id, sub, sub_kind, user_id, client_id, realm_id, ip_address, user_agent, expires_at, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const SELECT_SESSION = 'select id, sub, user_id, client_id, realm_id, expires_at, revoked_at from floor_sessions where id = ?';
const SELECT_USER = 'select id, realm_id, name, display_name, email, email_verified, active, created_at, updated_at from floor_users where id = ?';
const SPEND_CODE = 'update floor_codes set used_at = ? where id = ? and used_at is null';
const ROTATE_REFRESH = 'update floor_refresh set token_hash = ?, updated_at = ? where id = ?';

async function insertSession(subject, userId, clientId, seconds, request) {
    const id = randomUUID();
    const now = new Date();
    await db.run('floor_insert_session', INSERT_SESSION, [
        id, subject.id, subject.kind, userId, clientId, realm.id, request.socket.remoteAddress ?? null, request.headers['user-agent'] ?? null,
        db.timestamp(new Date(now.getTime() + seconds * 1000)), db.timestamp(now), db.timestamp(now),
    ]);
    return id;
}

// ---- what each kind needs before it answers: a user, a session, codes, refresh rows ----

const user = { id: randomUUID(), kind: 'user', scope: 'openid profile email global' };
const machine = { id: client.id, kind: 'client', scope: 'global' };
const started = new Date();
const fixture = {};
if (KIND === 'bearer' || KIND === 'introspect' || KIND === 'redeem' || KIND === 'refresh') {
    await db.run('floor_insert_user', 'insert into floor_users (id, realm_id, name, display_name, email, email_verified, active, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
        user.id, realm.id, `floor-${KIND}`, 'Floor User', `floor-${KIND}@bench.example`, DB_TYPE === 'sqlite' ? 1 : true, DB_TYPE === 'sqlite' ? 1 : true, db.timestamp(started), db.timestamp(started),
    ]);
    const sessionId = await insertSession(user, user.id, null, FIXTURE_SECONDS, { socket: {}, headers: {} });
    fixture.sessionId = sessionId;
    fixture.access_token = signJwt(tokenClaims(user, sessionId, 'access_token', FIXTURE_SECONDS));
    fixture.refresh_token = signJwt(tokenClaims(user, sessionId, 'refresh_token', FIXTURE_SECONDS));
}

/** rows from `from` to `to` (inclusive) in one statement: a series on PostgreSQL, a recursive CTE elsewhere */
function seriesInsert(table, columns, values, from, to) {
    if (DB_TYPE === 'postgres') return `insert into ${table} (${columns}) select ${values} from generate_series(${from}, ${to}) as s(n)`;
    return `insert into ${table} (${columns}) with recursive s(n) as (select ${from} union all select n + 1 from s where n < ${to}) select ${values} from s`;
}
const digestOf = (column) => (DB_TYPE === 'postgres' ? `md5(${column}::text)` : DB_TYPE === 'mysql' ? `sha2(${column}, 256)` : `hex(randomblob(32))`);
const textOf = (prefix) => (DB_TYPE === 'mysql' ? `concat('${prefix}', n)` : `'${prefix}' || n`);
const literal = (value) => `'${String(value).replace(/'/g, "''")}'`;
const timeLiteral = (date) => (DB_TYPE === 'postgres' ? `${literal(date.toISOString())}::timestamptz` : DB_TYPE === 'mysql' ? literal(date.toISOString().replace('T', ' ').replace('Z', '')) : literal(date.toISOString()));
/** MySQL's recursive CTEs stop at cte_max_recursion_depth (1,000 by default): batches of that size */
const SERIES_BATCH = DB_TYPE === 'mysql' ? 1_000 : 100_000;

async function insertSeries(table, columns, values, from, to) {
    for (let start = from; start <= to; start += SERIES_BATCH) {
        await db.exec(seriesInsert(table, columns, values, start, Math.min(to, start + SERIES_BATCH - 1)));
    }
}

/** codes are spent in order of their number: `next` is the one the next request spends */
const codes = { inserted: 0, next: 1 };
async function stockCodes(count) {
    const wanted = codes.next - 1 + count;
    if (wanted <= codes.inserted) return;
    const expires = new Date(Date.now() + FIXTURE_SECONDS * 1000);
    await insertSeries('floor_codes', 'id, code_digest, realm_id, client_id, user_id, session_id, redirect_uri, scope, expires_at, created_at',
        `${textOf('code-')}, ${digestOf('n')}, ${literal(realm.id)}, ${literal(client.id)}, ${literal(user.id)}, ${literal(fixture.sessionId ?? '')}, 'https://spa.bench.example/cb', 'openid profile email', ${timeLiteral(expires)}, ${timeLiteral(new Date())}`,
        codes.inserted + 1, wanted);
    codes.inserted = wanted;
}

let nextRefresh = 0;
if (KIND === 'redeem') await stockCodes(1_000);
if (KIND === 'refresh') {
    await insertSeries('floor_refresh', 'id, session_id, realm_id, user_id, client_id, token_hash, expires_at, created_at, updated_at',
        `${textOf('refresh-')}, ${literal(fixture.sessionId)}, ${literal(realm.id)}, ${literal(user.id)}, ${literal(client.id)}, ${digestOf('n')}, ${timeLiteral(new Date(Date.now() + FIXTURE_SECONDS * 1000))}, ${timeLiteral(started)}, ${timeLiteral(started)}`,
        1, REFRESH_ROWS);
}

// ---- the floors ----

function basicMatches(request) {
    const header = request.headers.authorization;
    if (header === undefined) return false;
    const given = Buffer.from(header);
    return given.length === expectedBasic.length && timingSafeEqual(given, expectedBasic);
}

const json = (response, status, body, headers = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
};
const oauthError = (response, status, error) => json(response, status, { error });

const floors = {
    async token(request, response, body) {
        if (!basicMatches(request)) return oauthError(response, 401, 'invalid_client');
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== 'client_credentials') return oauthError(response, 400, 'unsupported_grant_type');
        const sessionId = await insertSession(machine, null, client.id, ACCESS_SECONDS, request);
        json(response, 200, { access_token: signJwt(tokenClaims(machine, sessionId, 'access_token', ACCESS_SECONDS, client.id)), token_type: 'Bearer', expires_in: ACCESS_SECONDS, scope: machine.scope });
    },
    async introspect(request, response, body) {
        if (!basicMatches(request)) return oauthError(response, 401, 'invalid_client');
        const claims = verifyJwt(new URLSearchParams(body).get('token'));
        const session = claims && await db.get('floor_select_session', SELECT_SESSION, [claims.session_id]);
        if (!session || session.revoked_at) return json(response, 200, { active: false });
        json(response, 200, {
            active: true, token_type: claims.kind, sub: claims.sub, sub_kind: claims.sub_kind, realm_id: claims.realm_id, realm_name: claims.realm_name,
            ...(claims.client_id ? { client_id: claims.client_id } : {}), scope: claims.scope, session_id: claims.session_id, jti: claims.jti, iat: claims.iat, exp: claims.exp, iss: claims.iss,
        });
    },
    async bearer(request, response) {
        const header = request.headers.authorization;
        const claims = header?.startsWith('Bearer ') ? verifyJwt(header.slice(7)) : null;
        if (!claims) return json(response, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
        const row = await db.get('floor_select_user', SELECT_USER, [claims.sub]);
        if (!row) return json(response, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
        json(response, 200, {
            id: row.id, realmId: row.realm_id, name: row.name, displayName: row.display_name, email: row.email,
            emailVerified: Boolean(row.email_verified), active: Boolean(row.active), createdAt: row.created_at, updatedAt: row.updated_at,
        });
    },
    async redeem(request, response, body) {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== 'authorization_code' || !form.get('code')) return oauthError(response, 400, 'invalid_request');
        // the bench sends the shape of a redemption; the code spent is the next unspent row
        if (codes.next > codes.inserted) return oauthError(response, 503, 'temporarily_unavailable');
        const codeId = `code-${codes.next++}`;
        if (await db.run('floor_spend_code', SPEND_CODE, [db.timestamp(new Date()), codeId]) !== 1) return oauthError(response, 400, 'invalid_grant');
        const sessionId = await insertSession(user, user.id, client.id, ACCESS_SECONDS, request);
        const access = signJwt(tokenClaims(user, sessionId, 'access_token', ACCESS_SECONDS, client.id));
        const refresh = signJwt(tokenClaims(user, sessionId, 'refresh_token', FIXTURE_SECONDS, client.id));
        const iat = Math.floor(Date.now() / 1000);
        const idToken = signJwt({
            iss: ISSUER, sub: user.id, aud: client.id, azp: client.id, kind: 'id_token', realm_id: realm.id, realm_name: realm.name, sid: sessionId,
            auth_time: iat, nonce: 'floor', at_hash: createHash('sha256').update(access).digest().subarray(0, 16).toString('base64url'), iat, exp: iat + ACCESS_SECONDS,
        });
        json(response, 200, { access_token: access, token_type: 'Bearer', expires_in: ACCESS_SECONDS, refresh_token: refresh, id_token: idToken, scope: user.scope });
    },
    async refresh(request, response, body) {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== 'refresh_token' || !form.get('refresh_token')) return oauthError(response, 400, 'invalid_request');
        const access = signJwt(tokenClaims(user, fixture.sessionId, 'access_token', ACCESS_SECONDS, client.id));
        const refresh = signJwt(tokenClaims(user, fixture.sessionId, 'refresh_token', FIXTURE_SECONDS, client.id));
        const rowId = `refresh-${(nextRefresh++ % REFRESH_ROWS) + 1}`;
        const hash = createHash('sha256').update(refresh).digest('hex');
        if (await db.run('floor_rotate_refresh', ROTATE_REFRESH, [hash, db.timestamp(new Date()), rowId]) !== 1) return oauthError(response, 400, 'invalid_grant');
        json(response, 200, { access_token: access, token_type: 'Bearer', expires_in: ACCESS_SECONDS, refresh_token: refresh, scope: user.scope });
    },
};

const floor = floors[KIND];

/** the bench's own requests, never measured */
async function control(request, response, body) {
    if (request.method === 'GET' && request.url === '/floor/fixture') return json(response, 200, { kind: KIND, access_token: fixture.access_token, refresh_token: fixture.refresh_token });
    if (request.method === 'POST' && request.url === '/floor/stock') {
        const count = Number(JSON.parse(body || '{}').count);
        if (KIND === 'redeem' && Number.isSafeInteger(count) && count > 0) await stockCodes(count);
        return json(response, 200, { available: codes.inserted - codes.next + 1 });
    }
    json(response, 404, { error: 'not_found' });
}

createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const answer = request.url.startsWith('/floor/')
            ? control(request, response, body)
            : floor(request, response, body);
        answer.catch((error) => {
            console.error(error);
            if (!response.headersSent) json(response, 500, { error: 'server_error' });
        });
    });
}).listen(PORT, '127.0.0.1');
