import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { createActor, createRealm } from '../../test/actors.js';
import { useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';
import type { TokenSubject } from './claims.js';

describeEachDialect('session store: logins arriving together', (dialect) => {
    const app = useTestApp(dialect);
    let subject: TokenSubject;
    beforeAll(async () => {
        const realmId = await createRealm(app, `batch-${randomUUID().slice(0, 8)}`);
        const actor = await createActor(app, realmId, []);
        subject = { id: actor.userId, kind: 'user', realmId, realmName: 'batch' };
    });

    const session = (clientId: string | null) => ({
        subject, clientId, ipAddress: '192.0.2.1', userAgent: 'test', expiresAt: new Date(Date.now() + 60_000),
    });

    it('writes every row of concurrent logins, each caller getting its own session id', async () => {
        const ids = await Promise.all(Array.from({ length: 12 }, () => app.deps.sessions.create(app.deps.db, session(null))));
        expect(new Set(ids).size).toBe(12);
        const rows = await app.deps.db.selectFrom('auth_sessions').select(['id', 'sub', 'revoked_at']).where('id', 'in', ids).execute();
        expect(rows).toHaveLength(12);
        expect(rows.every((row) => row.sub === subject.id && row.revoked_at === null)).toBe(true);
    });

    it('fails only the login whose row is refused; the others of its batch are written', async () => {
        // a client that does not exist violates the foreign key of that row alone
        const results = await Promise.allSettled([
            app.deps.sessions.create(app.deps.db, session(null)),
            app.deps.sessions.create(app.deps.db, session(randomUUID())),
            app.deps.sessions.create(app.deps.db, session(null)),
        ]);
        expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        const written = results.flatMap((result) => result.status === 'fulfilled' ? [result.value] : []);
        expect(await app.deps.db.selectFrom('auth_sessions').select('id').where('id', 'in', written).execute()).toHaveLength(2);
    });

    it('writes a row inside a transaction on that transaction, rolled back with it', async () => {
        let id = '';
        await expect(app.deps.db.transaction().execute(async (trx) => {
            id = await app.deps.sessions.create(trx, session(null));
            expect(await trx.selectFrom('auth_sessions').select('id').where('id', '=', id).executeTakeFirst()).toBeDefined();
            throw new Error('roll back');
        })).rejects.toThrow('roll back');
        expect(await app.deps.db.selectFrom('auth_sessions').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    });
});
