import { beforeAll, expect, it } from 'vitest';
import { createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/**
 * Input that is not text (invalid UTF-8, lone surrogates) is refused instead of
 * being replaced differently by each database; names are stored in NFC and hold no control,
 * bidirectional formatting or zero-width character.
 */
describeEachDialect('input encoding (invalid UTF-8 refused, names in NFC without control, bidi or zero-width characters)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    beforeAll(async () => {
        realm = await createRealm(app, 'encoding-a');
    });

    const roleCount = async () => Number((await app.deps.db.selectFrom('auth_roles').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const json = { 'content-type': 'application/json' };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };

    it('refuses invalid UTF-8, lone surrogates and forbidden name characters with 400 and writes nothing', async () => {
        const cases: { label: string; headers: Record<string, string>; payload: string | Buffer }[] = [
            { label: 'invalid UTF-8 in JSON', headers: json, payload: Buffer.concat([Buffer.from(`{"realmId":"${realm}","name":"bad`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]) },
            { label: 'truncated UTF-8 in JSON', headers: json, payload: Buffer.concat([Buffer.from(`{"realmId":"${realm}","name":"bad`), Buffer.from([0xc3]), Buffer.from('"}')]) },
            { label: 'invalid UTF-8 in a form', headers: form, payload: Buffer.concat([Buffer.from(`realmId=${realm}&name=bad`), Buffer.from([0xc3])]) },
            { label: 'percent-encoded invalid UTF-8 in a form', headers: form, payload: `realmId=${realm}&name=bad%FF` },
            { label: 'lone high surrogate', headers: json, payload: `{"realmId":"${realm}","name":"bad\\ud800x"}` },
            { label: 'lone low surrogate in a key', headers: json, payload: `{"realmId":"${realm}","name":"bad","\\udc00":1}` },
            ...['\u202E', '\u2066', '\u200F', '\u061C', '\u200B', '\u200D', '\u2060', '\uFEFF', '\u0007', '\u0085'].map((character) => ({
                label: `name with U+${character.codePointAt(0)?.toString(16).padStart(4, '0')}`,
                headers: json, payload: JSON.stringify({ realmId: realm, name: `bad${character}name` }),
            })),
        ];
        const before = await roleCount();
        for (const { label, headers, payload } of cases) {
            const response = await app.request({ method: 'POST', url: '/roles', headers, payload });
            expect(response.statusCode, `${label}: ${response.body}`).toBe(400);
            expect((response.json() as { issues?: unknown[] }).issues?.length, label).toBeGreaterThan(0);
        }
        const role = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { realmId: realm, name: 'plain' } }, 201)).data;
        for (const name of ['x\u202Ey', 'x\u200By']) {
            const response = await app.request({ method: 'POST', url: `/roles/${role.id}`, payload: { name } });
            expect(response.statusCode, name).toBe(400);
        }
        expect(await roleCount()).toBe(before + 1);
        expect((await app.json<{ data: { name: string } }>({ method: 'GET', url: `/roles/${role.id}` }, 200)).data.name).toBe('plain');
    });

    it('stores and reads a name in NFC, and a name differing only by normalisation conflicts', async () => {
        const nfd = 'Cafe\u0301';
        const nfc = 'Caf\u00e9';
        const created = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/roles', payload: { realmId: realm, name: nfd } }, 201)).data;
        expect(created.name).toBe(nfc);
        expect((await app.json<{ data: { name: string } }>({ method: 'GET', url: `/roles/${created.id}` }, 200)).data.name).toBe(nfc);
        const stored = await app.deps.db.selectFrom('auth_roles').select('name').where('id', '=', created.id).executeTakeFirstOrThrow();
        expect(stored.name).toBe(nfc);
        const again = await app.request({ method: 'POST', url: '/roles', payload: { realmId: realm, name: nfc } });
        expect(again.statusCode).toBe(409);
        const other = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { realmId: realm, name: 'other' } }, 201)).data;
        expect((await app.request({ method: 'POST', url: `/roles/${other.id}`, payload: { name: nfd } })).statusCode).toBe(409);
    });
    it('PUT /<collection>/:name takes the name in NFC as the create path does: it updates the NFC row, or creates with an NFC body name', async () => {
        const nfd = 'Re\u0301sume\u0301';
        const nfc = 'R\u00e9sum\u00e9';
        const created = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { realmId: realm, name: nfc } }, 201)).data;
        const url = `/realms/${realm}/roles/${encodeURIComponent(nfd)}`;
        const updated = await app.request({ method: 'PUT', url, payload: { description: 'updated through its NFD name' } });
        expect(updated.statusCode, updated.body).toBe(200);
        expect(updated.json()).toMatchObject({ data: { id: created.id, name: nfc, description: 'updated through its NFD name' } });
        // reads resolve the name the same way
        expect((await app.json<{ data: { id: string } }>({ method: 'GET', url }, 200)).data.id).toBe(created.id);
        // a new row: the path's NFD name and the body's NFC name are the same name
        const fresh = await app.request({ method: 'PUT', url: `/realms/${realm}/roles/${encodeURIComponent('Cre\u0300me')}`, payload: { name: 'Cr\u00e8me' } });
        expect(fresh.statusCode, fresh.body).toBe(201);
        expect(fresh.json()).toMatchObject({ data: { name: 'Cr\u00e8me' } });
        // a forbidden character in the path's name is refused as in a body
        expect((await app.request({ method: 'PUT', url: `/realms/${realm}/roles/${encodeURIComponent('x\u202Ey')}`, payload: {} })).statusCode).toBe(400);
    });

    it('answers a broken JSON body that nothing reads without an uncaught stream error (found by fuzzing)', async () => {
        // before the fix the unread body's UTF-8 check failed with no listener: an uncaught exception, the process ended
        const payload = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
        for (const [url, as] of [['/users', undefined], ['/openapi.json', null], ['/realms/master/.well-known/openid-configuration', null]] as const) {
            const response = await app.request({ method: 'GET', url, headers: json, payload, ...(as === null ? { as } : {}) });
            expect(response.statusCode, url).toBe(200);
        }
        // a method whose body is read still refuses it
        expect((await app.request({ method: 'DELETE', url: '/sessions', headers: json, payload })).statusCode).toBe(400);
        // the unread streams fail on the next ticks: the app still answers after them
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect((await app.request({ method: 'GET', url: '/users' })).statusCode).toBe(200);
    });
});
