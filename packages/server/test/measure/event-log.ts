/*
 * What the detached event log costs a token request: a client_credentials answer
 * records three entries (signedIn, session.created, tokenIssued). Records `rounds` × 1,000 such
 * triples on a SQLite file and prints the process CPU time per triple — the JS that builds and
 * queues the rows, and the batched INSERTs (SQLite runs in this process).
 *
 *   node --conditions=source --import tsx packages/server/test/measure/event-log.ts [rounds]
 *
 * Instruction counts, steady on a shared machine: run it under
 * `valgrind --tool=callgrind --instr-atstart=no` with CALLGRIND=1 in the environment (the rounds
 * switch the instrumentation on and dump; HOST must match callgrind_control's), then divide the
 * dump's total by rounds × 1,000.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { recordIssuance } from '../../src/tokens/auth-events.js';
import { startTestApp } from '../app.js';

const rounds = Number(process.argv[2] ?? 5);
const app = await startTestApp('sqlite');
try {
    const realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'events' } }, 201)).data.id;
    const subject = { id: randomUUID(), kind: 'client' as const, realmId };
    const triple = () => recordIssuance(app.deps.events, {
        grantType: 'client_credentials', subject, clientId: subject.id, sessionId: randomUUID(), newSession: true, signIn: 'client',
        request: { ip: '127.0.0.1', method: 'POST', path: '/token' },
    });
    // requests arrive a few at a time: ten triples per turn of the event loop
    const send = async (count: number) => {
        for (let i = 0; i < count; i += 10) {
            for (let j = 0; j < 10; j++) triple();
            await new Promise((resolve) => setImmediate(resolve));
        }
        await app.deps.events.settled();
    };
    await send(2000);
    const callgrind = (...args: string[]) => process.env.CALLGRIND ? promisify(execFile)('callgrind_control', [...args, String(process.pid)]) : undefined;
    await callgrind('-i', 'on');
    for (let round = 0; round < rounds; round++) {
        const start = process.cpuUsage();
        await send(1000);
        const cpu = process.cpuUsage(start);
        console.log(`round ${round}: ${((cpu.user + cpu.system) / 1000).toFixed(1)} µs CPU per client_credentials' three entries`);
    }
    await callgrind('-d');
    await callgrind('-i', 'off');
} finally {
    await app.dispose();
}
