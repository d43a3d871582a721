import { describe, expect, it } from 'vitest';
import { generateSigningMaterial, type SigningAlgorithm } from './material.js';
import { createSpareMaterial } from './spare-material.js';

describe('spare key material', () => {
    it('hands every RSA pair to one caller only, the next one generated ahead after each use', async () => {
        const generated: SigningAlgorithm[] = [];
        const spare = createSpareMaterial(async (algorithm) => {
            generated.push(algorithm);
            return generateSigningMaterial(algorithm);
        });
        const first = await spare.take('RS256');
        // the first take generated its own pair and began the spare
        expect(generated).toEqual(['RS256', 'RS256']);
        const second = await spare.take('RS256');
        // the second took the spare and began the next one
        expect(generated).toHaveLength(3);
        const third = await spare.take('RS256');
        const moduli = [first, second, third].map((material) => material.publicJwk.n);
        expect(new Set(moduli).size).toBe(3);
        expect(new Set([first, second, third].map((material) => material.privatePem)).size).toBe(3);
        expect(first.algorithm).toBe('RS256');
    });

    it('generates an ES256 pair on demand, none ahead', async () => {
        const generated: SigningAlgorithm[] = [];
        const spare = createSpareMaterial(async (algorithm) => {
            generated.push(algorithm);
            return generateSigningMaterial(algorithm);
        });
        const [a, b] = await Promise.all([spare.take(), spare.take('ES256')]);
        expect(generated).toEqual(['ES256', 'ES256']);
        expect(a.publicJwk.x).not.toBe(b.publicJwk.x);
    });
});
