/**
 * DPoP load (RFC 9449): every request carries a fresh proof, as a real client sends — a proof is
 * single use. The proofs are signed ahead of each load (untimed), so the load generator spends
 * nothing per request on them; each holds its signing time as `iat`, well inside the server's 60 s
 * window for a load of a few seconds.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { loadOnce, type LoadRequest } from './load.js';
import type { Service } from './processes.js';
import type { Scenario } from './scenarios.js';

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** One ES256 key and its proofs for `htm` `htu`, minted ahead of each load by the rate the previous one reached. */
export function dpopProofPool(htm: string, htu: string) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
    const header = segment({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } });
    const mint = () => {
        const input = `${header}.${segment({ htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })}`;
        return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    };
    let pool: string[] = [];
    // requests per second to mint for; raised to what a load reached
    let rate = 3_000;
    let minted = 0;
    return {
        /** proofs for a load of `seconds`, with a margin; the previous load's leftovers are dropped (their iat ages) */
        fill(seconds: number) {
            pool = Array.from({ length: Math.ceil(rate * seconds * 1.3) + 200 }, mint);
        },
        /** a proof not used before; minted on the spot (and counted) should the pool run dry */
        next(): string {
            const proof = pool.pop();
            if (proof !== undefined) return proof;
            minted++;
            return mint();
        },
        observe(requests: number, seconds: number) {
            if (seconds > 0) rate = Math.max(rate, requests / seconds);
        },
        /** proofs minted during a load because the pool ran dry */
        mintedDuringLoad: () => minted,
    };
}

/** A scenario whose every request carries the next proof of `proofs` in its `DPoP` header. */
export function dpopScenario(key: string, service: Service, request: LoadRequest, connections: number, proofs: ReturnType<typeof dpopProofPool>): Scenario {
    const load: LoadRequest = {
        ...request,
        setupRequest(built) {
            return { ...built, headers: { ...built.headers, dpop: proofs.next() } };
        },
    };
    return {
        key,
        server: service,
        prepare: async (seconds) => proofs.fill(seconds),
        load: (seconds, settleMs) => loadOnce(service.url, load, connections, seconds, settleMs),
        observe: (result) => proofs.observe(result.requests, result.seconds),
    };
}
