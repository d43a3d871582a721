import { fastifyCookie } from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { Server, type Socket } from 'socket.io';
import { BuiltInPolicyType, type PolicyData } from '@realmgate/access';
import type { Actor } from '../authn/actor.js';
import { authenticateBearer } from '../authn/bearer.js';
import { consoleSessionActor, cookiePolicy, verifyConsoleSession } from '../authn/console-session.js';
import { createRequestAuthorizer, type RequestAuthorizer } from '../authz/authorizer.js';
import type { EntityEvent } from '../bus/bus.js';
import type { ResourceDefinition } from '../domains/resource/context.js';
import { permissionFor, realmMatchOf } from '../domains/resource/spec.js';
import type { AppDeps } from './deps.js';

/** socket.io's path on the API's own listener (its default) */
const REALTIME_PATH = '/socket.io';

/** How a socket authenticated: a bearer access token, or the console-session cookie of the server's own pages. */
type Credential = { kind: 'bearer'; token: string } | { kind: 'session'; cookie: string };

interface SocketState {
    credential: Credential;
    actor: Actor;
    authorizer: RequestAuthorizer;
    /** the bus generation the authorizer was built at (see `generation` below) */
    generation: number;
}

type Ack = (answer: { ok: true } | { ok: false; code: string; message: string }) => void;

/**
 * Entities whose change may change what a subscriber may read: definitions (the catalog), grants
 * and the identities and sessions they hang on. Any event of these makes every socket rebuild its
 * authorizer before its next delivery.
 */
const AUTHORIZATION_ENTITIES = new Set([
    'permission', 'policy', 'permission_policy', 'role', 'role_permission', 'user_role', 'user_permission',
    'client_role', 'client_permission', 'user', 'client', 'realm', 'session', 'key',
]);

/**
 * The realtime half of the bus: socket.io on the API's listener. A socket
 * authenticates like a request — `auth: { token }` with a bearer access token, or the console
 * session cookie from the server's own origin — then `subscribe`s to collections; each entity event
 * of a collection reaches a socket only when its caller may read that row (the collection's read
 * permission evaluated on the row's realm and record, by the same engine as `GET /<collection>`),
 * with no column withheld from default reads (spec Events 5). Before every delivery the credential
 * is verified again, so a revoked session or an expired token stops the stream at the next event.
 *
 * Each replica delivers to its own sockets from the shared bus (Redis or PostgreSQL), since every delivery is a
 * per-socket decision; socket.io's Redis adapter, which broadcasts rooms blindly, is not needed.
 */
export function attachRealtime(app: FastifyInstance, deps: AppDeps, definitions: readonly ResourceDefinition[]): void {
    const byCollection = new Map(definitions.map((definition) => [definition.spec.collection, definition]));
    const byEntity = new Map(definitions.map((definition) => [definition.spec.entity, definition]));
    const cookies = cookiePolicy(deps.config.publicUrl);
    // CORS applies to the polling transport only: any origin may connect with a bearer token, which
    // no browser sends by itself; credentials (cookies) are never allowed cross-origin
    const io = new Server(app.server, { path: REALTIME_PATH, serveClient: false, cors: { origin: true, credentials: false } });
    /** bumped by every event that may change a decision; a socket's authorizer of an older generation is rebuilt */
    let generation = 0;

    const authenticate = async (credential: Credential): Promise<Actor | null> => {
        if (credential.kind === 'bearer') return authenticateBearer(deps, credential.token).catch(() => null);
        const session = await verifyConsoleSession(deps.db, credential.cookie);
        return session ? consoleSessionActor(session) : null;
    };

    const credentialOf = (socket: Socket): Credential | null => {
        const token: unknown = socket.handshake.auth?.token;
        if (typeof token === 'string' && token.length > 0) return { kind: 'bearer', token: token.replace(/^Bearer\s+/i, '') };
        const cookie = fastifyCookie.parse(socket.handshake.headers.cookie ?? '')[cookies.sessionName];
        if (cookie === undefined) return null;
        // cross-site WebSocket hijacking: a cookie is the caller only from the server's own pages
        const origin = socket.handshake.headers.origin;
        return origin === cookies.origin ? { kind: 'session', cookie } : null;
    };

    io.use((socket, next) => {
        const credential = credentialOf(socket);
        if (!credential) {
            next(new Error('unauthorized: send auth.token (a bearer access token) or connect from the console with its session'));
            return;
        }
        authenticate(credential).then(async (actor) => {
            if (!actor) throw new Error('unauthorized: the credential is not valid');
            const authorizer = await createRequestAuthorizer(deps, actor);
            socket.data = { credential, actor, authorizer, generation } satisfies SocketState;
            next();
        }).catch((error: unknown) => next(error instanceof Error ? error : new Error('unauthorized')));
    });

    io.on('connection', (socket) => {
        socket.on('subscribe', (payload: unknown, ack?: Ack) => {
            const reply: Ack = typeof ack === 'function' ? ack : () => undefined;
            const collection = typeof payload === 'object' && payload !== null ? (payload as { collection?: unknown }).collection : undefined;
            const definition = typeof collection === 'string' ? byCollection.get(collection) : undefined;
            if (!definition) {
                reply({ ok: false, code: 'invalid_request', message: 'subscribe takes { collection } naming an administered collection' });
                return;
            }
            const state = socket.data as SocketState;
            // the pre-gate of GET /<collection>: some reach of the read permission (pending policies pass)
            state.authorizer.preAssert(permissionFor(definition.spec, 'read')).then(async () => {
                await socket.join(definition.spec.collection);
                reply({ ok: true });
            }, () => reply({ ok: false, code: 'permission_denied', message: `reading ${definition.spec.collection} is not allowed` }));
        });
        socket.on('unsubscribe', (payload: unknown, ack?: Ack) => {
            const collection = typeof payload === 'object' && payload !== null ? (payload as { collection?: unknown }).collection : undefined;
            if (typeof collection === 'string') void socket.leave(collection);
            if (typeof ack === 'function') ack({ ok: true });
        });
    });

    /** the state a delivery decides with: credential verified again, authorizer current */
    const current = async (socket: Socket): Promise<SocketState | null> => {
        const state = socket.data as SocketState;
        const actor = await authenticate(state.credential);
        if (!actor) return null;
        if (state.generation !== generation) {
            state.authorizer = await createRequestAuthorizer(deps, actor);
            state.generation = generation;
        }
        return state;
    };

    const deliver = async (socket: Socket, definition: ResourceDefinition, event: EntityEvent, payload: EntityEvent): Promise<void> => {
        const state = await current(socket);
        if (!state) {
            socket.emit('unauthorized', { code: 'invalid_token', message: 'The credential is no longer valid.' });
            socket.disconnect(true);
            return;
        }
        const { spec } = definition;
        const realm = spec.realm === 'self' ? event.id : spec.realm === 'none' ? undefined : event.realmId;
        const data: PolicyData = { ...realmMatchOf(realm), [BuiltInPolicyType.ATTRIBUTES]: payload.data ?? {} };
        if (state.authorizer.allows(permissionFor(spec, 'read'), data)) socket.emit('event', payload);
    };

    /** each socket's last delivery, which its next one waits for */
    const deliveries = new WeakMap<Socket, Promise<void>>();
    const unsubscribe = deps.bus.subscribe((message) => {
        if (message.kind !== 'entity') {
            generation++;
            return;
        }
        const { event } = message;
        if (AUTHORIZATION_ENTITIES.has(event.entity)) generation++;
        const definition = byEntity.get(event.entity);
        if (!definition) return;
        const room = io.sockets.adapter.rooms.get(definition.spec.collection);
        if (!room || room.size === 0) return;
        const payload = { ...event, data: readable(definition, event.data) };
        for (const id of room) {
            const socket = io.sockets.sockets.get(id);
            if (!socket) continue;
            // a delivery awaits the credential's check, so each socket's deliveries run one after another:
            // a subscriber hears an entity's events in the order they were committed (created, updated, deleted)
            const delivered = (deliveries.get(socket) ?? Promise.resolve())
                .then(() => deliver(socket, definition, event, payload))
                .catch((error: unknown) => app.log.warn({ err: error }, 'realtime delivery failed'));
            deliveries.set(socket, delivered);
        }
    });

    // before Fastify closes its listener: open WebSockets would keep it from closing (io.close()
    // would close the listener itself, which is Fastify's to close)
    app.addHook('preClose', (done) => {
        unsubscribe();
        io.disconnectSockets(true);
        io.engine.close();
        done();
    });
}

/** The default-read members only (spec Events 5), whatever the recording side put in the event. */
function readable(definition: ResourceDefinition, data: Record<string, unknown> | null): Record<string, unknown> | null {
    if (data === null) return null;
    const hidden = new Set(definition.fields.filter((field) => (field.read ?? 'default') !== 'default').map((field) => field.name));
    return Object.fromEntries(Object.entries(data).filter(([name]) => !hidden.has(name)));
}
