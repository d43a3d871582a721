import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundPolicy, OutboundRefusedError, refusalOfUrl } from './address-policy.js';
import { createOutboundFetch } from './guarded-fetch.js';
import { resolveOutbound, type Resolver } from './guarded-lookup.js';

const closed = createOutboundPolicy([]);

describe('outbound address policy', () => {
    it.each([
        'http://127.0.0.1/', 'http://10.1.2.3/', 'http://172.16.0.1/', 'http://192.168.1.1/', 'http://100.64.0.1/',
        'http://169.254.169.254/latest/meta-data/', 'http://0.0.0.0/', 'http://224.0.0.1/', 'http://255.255.255.255/',
        'http://[::1]/', 'http://[::]/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://[ff02::1]/',
        'http://[::ffff:127.0.0.1]/', 'http://[::ffff:a9fe:a9fe]/', 'http://2130706433/', 'http://0x7f.1/',
        'http://localhost:8080/', 'http://api.localhost/', 'ldap://10.0.0.5:389', 'ldaps://2130706433/', 'ldap://[::1]:389',
    ])('refuses %s as written', (url) => {
        expect(refusalOfUrl(closed, url)).not.toBeNull();
    });

    it.each(['https://idp.example/', 'https://8.8.8.8/', 'http://[2606:4700::1111]/', 'ldaps://ldap.example:636'])('lets %s through (its name is judged again when connecting)', (url) => {
        expect(refusalOfUrl(closed, url)).toBeNull();
    });

    it('lets the operator allow host names, addresses and CIDR ranges', () => {
        const open = createOutboundPolicy(['10.0.0.0/8', '::1', 'ldap.internal', '127.0.0.1']);
        expect(refusalOfUrl(open, 'ldap://10.20.30.40')).toBeNull();
        expect(refusalOfUrl(open, 'http://[::1]:3000/')).toBeNull();
        expect(refusalOfUrl(open, 'http://[::ffff:127.0.0.1]/')).toBeNull();
        expect(refusalOfUrl(open, 'http://192.168.0.1/')).not.toBeNull();
        // an allowlisted name reaches whatever its resolver answers
        expect(open.refusalOfAddress('192.168.7.7', 'ldap.internal')).toBeNull();
        expect(open.refusalOfAddress('192.168.7.7', 'other.example')).not.toBeNull();
    });
});

describe('outbound connections', () => {
    let server: Server;
    let port = 0;
    let requests = 0;
    beforeAll(async () => {
        server = createServer((request, response) => {
            requests += 1;
            let body = '';
            request.on('data', (chunk) => { body += String(chunk); });
            request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end(`${request.method} ${body}`));
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    // a public-looking name whose resolver answers loopback: the DNS-rebinding case
    const rebinding: Resolver = (_host, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);

    it('refuses a name that resolves to a loopback address, before any byte is sent', async () => {
        const before = requests;
        const fetch = createOutboundFetch(closed, rebinding);
        await expect(fetch(`http://rp.example:${port}/logout`, { method: 'POST', body: 'x=1' })).rejects.toThrow(/loopback/);
        // an address literal is judged as written: no resolver is asked
        await expect(createOutboundFetch(closed)(`http://127.0.0.1:${port}/`)).rejects.toBeInstanceOf(OutboundRefusedError);
        expect(requests).toBe(before);
    });

    it('connects when the operator allows the range, and carries the method and body', async () => {
        const fetch = createOutboundFetch(createOutboundPolicy(['127.0.0.0/8']), rebinding);
        const answer = await fetch(`http://rp.example:${port}/logout`, { method: 'POST', body: new URLSearchParams({ logout_token: 't' }) });
        expect(answer.status).toBe(200);
        expect(await answer.text()).toBe('POST logout_token=t');
    });

    it('asks the system resolver for a name and connects when every address is admitted', async () => {
        const fetch = createOutboundFetch(createOutboundPolicy(['127.0.0.0/8', '::1']));
        // `localhost` is loopback by name and by what the resolver answers; the range admits both
        const answer = await fetch(`http://localhost:${port}/`);
        expect(answer.status).toBe(200);
        await expect(createOutboundFetch(createOutboundPolicy(['127.0.0.0/8']), (_host, callback) => callback(null, [
            { address: '127.0.0.1', family: 4 }, { address: '10.0.0.1', family: 4 },
        ]))(`http://mixed.example:${port}/`)).rejects.toThrow(/private/);
    });

    it('resolves a directory host once, to an address the policy admits', async () => {
        await expect(resolveOutbound(closed, 'ldap.example', rebinding)).rejects.toBeInstanceOf(OutboundRefusedError);
        await expect(resolveOutbound(closed, 'localhost')).rejects.toBeInstanceOf(OutboundRefusedError);
        await expect(resolveOutbound(createOutboundPolicy(['127.0.0.1']), 'ldap.example', rebinding)).resolves.toEqual({ address: '127.0.0.1', family: 4 });
    });
});
