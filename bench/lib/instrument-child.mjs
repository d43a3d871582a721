/**
 * Preloaded (`node --import`) into every Realmgate server the HTTP benchmark starts, never into a
 * deployment: it counts the statements the server sends to its database driver and the HTTP
 * responses it finishes, and takes a V8 CPU profile on request. The bench reads both over the IPC
 * channel (bench/lib/instrument.ts), so the server's own code carries no bench hook.
 *
 * Plain JavaScript: the server runs from the built dist without tsx.
 */
import { subscribe } from 'node:diagnostics_channel';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const counters = { queries: 0, responses: 0 };

// resolve the drivers as the server does, so the prototypes patched are the ones it loads
const serverRequire = createRequire(join(process.env.BENCH_SERVER_PACKAGE ?? process.cwd(), 'package.json'));

/** Wraps `owner[name]` to count each outermost call (a driver method calling its twin counts once). */
function count(owner, name) {
    const original = owner?.[name];
    if (typeof original !== 'function') return false;
    let inside = false;
    owner[name] = function counted(...args) {
        if (inside) return original.apply(this, args);
        counters.queries += 1;
        inside = true;
        try {
            return original.apply(this, args);
        } finally {
            inside = false;
        }
    };
    return true;
}

/** The prototype in the chain that defines `name`, so subclasses (pool connections) are covered. */
function owning(prototype, name) {
    for (let current = prototype; current; current = Object.getPrototypeOf(current)) {
        if (Object.hasOwn(current, name)) return current;
    }
    return undefined;
}

function instrumentDriver(type) {
    if (type === 'postgres') {
        // node-postgres: one Client#query is one round trip (a named prepared statement included:
        // parse, bind and execute go out together)
        const pg = serverRequire('pg');
        return count(pg.Client.prototype, 'query');
    }
    if (type === 'mysql') {
        const mysql = serverRequire('mysql2');
        const prototype = mysql.PoolConnection?.prototype ?? mysql.Connection.prototype;
        const query = count(owning(prototype, 'query'), 'query');
        const execute = count(owning(prototype, 'execute'), 'execute');
        return query && execute;
    }
    // SQLite has no round trip: every statement run is one call into the library, counted alike
    const Database = serverRequire('better-sqlite3');
    const probe = new Database(':memory:');
    const statement = Object.getPrototypeOf(probe.prepare('select 1'));
    probe.close();
    return ['all', 'get', 'run', 'iterate'].map((name) => count(statement, name)).every(Boolean);
}

const instrumented = instrumentDriver(process.env.DB_TYPE ?? 'sqlite');
subscribe('http.server.response.finish', () => {
    counters.responses += 1;
});

let session;

async function post(method, params) {
    return new Promise((resolve, reject) => {
        session.post(method, params, (error, result) => (error ? reject(error) : resolve(result)));
    });
}

const handlers = {
    counters: async () => ({ ...counters, instrumented }),
    async profileStart({ intervalMicros }) {
        session = new Session();
        session.connect();
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', { interval: intervalMicros });
        await post('Profiler.start');
        return {};
    },
    async profileStop() {
        const { profile } = await post('Profiler.stop');
        await post('Profiler.disable');
        session.disconnect();
        session = undefined;
        return { profile };
    },
};

if (process.send) {
    process.on('message', (message) => {
        const handler = handlers[message?.type];
        if (!handler || message.id === undefined) return;
        handler(message).then(
            (result) => process.send({ id: message.id, ...result }),
            (error) => process.send({ id: message.id, error: String(error) }),
        );
    });
    // the channel must not keep a stopping server alive
    process.channel?.unref();
}
