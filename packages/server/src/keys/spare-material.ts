import { DEFAULT_SIGNING_ALGORITHM, generateSigningMaterial, type SigningAlgorithm, type SigningMaterial } from './material.js';

/** Hands out fresh key pairs; every pair goes to exactly one caller. */
export interface SpareMaterial {
    take(algorithm?: SigningAlgorithm): Promise<SigningMaterial>;
}

/**
 * An RSA-2048 pair costs about 100 ms of CPU to generate (an EC P-256 pair well under one), and a
 * realm's signing keys are created inside the transaction that creates the realm, so that its JWKS
 * holds every advertised key before any of them signs (OIDC Core §10.1.1); on SQLite that
 * transaction holds the only writer. So one RSA pair is generated ahead, and again after each
 * use, off the event loop: the next realm takes it ready. A pair is never handed out twice.
 */
export function createSpareMaterial(generate: (algorithm: SigningAlgorithm) => Promise<SigningMaterial> = generateSigningMaterial): SpareMaterial {
    const spares = new Map<SigningAlgorithm, Promise<SigningMaterial>>();
    const prepare = (algorithm: SigningAlgorithm): void => {
        const next = generate(algorithm);
        // a failed spare is reported to the caller that takes it, never as an unhandled rejection
        next.catch(() => undefined);
        spares.set(algorithm, next);
    };
    return {
        take(algorithm = DEFAULT_SIGNING_ALGORITHM) {
            if (algorithm === DEFAULT_SIGNING_ALGORITHM) return generate(algorithm);
            const spare = spares.get(algorithm);
            prepare(algorithm);
            return spare ?? generate(algorithm);
        },
    };
}
