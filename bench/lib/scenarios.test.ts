import { describe, expect, it } from 'vitest';
import { interleave, type Scenario } from './scenarios.js';

const scenario = (key: string): Scenario => ({ key, prepare: async () => undefined, load: async () => ({ requests: 0, seconds: 1, p50: 0, p99: 0, errors: 0 }) });
const keys = (list: Scenario[]) => list.map((entry) => entry.key);
const afterColon = (key: string) => key.slice(key.indexOf(':') + 1);

describe('interleave', () => {
    it('runs the same scenario on every database back to back, in the first list\'s order', () => {
        const sqlite = ['sqlite:cc', 'sqlite:me', 'sqlite:list'].map(scenario);
        const postgres = ['postgres:cc', 'postgres:me', 'postgres:list'].map(scenario);
        expect(keys(interleave([sqlite, postgres], afterColon))).toEqual(['sqlite:cc', 'postgres:cc', 'sqlite:me', 'postgres:me', 'sqlite:list', 'postgres:list']);
    });

    it('places a shorter list\'s scenarios in their groups and keeps groups only it has', () => {
        const full = ['sqlite:cc', 'sqlite:me'].map(scenario);
        const partial = ['redis:me', 'redis:extra'].map(scenario);
        const floors = ['floor:me'].map(scenario);
        expect(keys(interleave([full, partial, floors], afterColon))).toEqual(['sqlite:cc', 'sqlite:me', 'redis:me', 'floor:me', 'redis:extra']);
    });
});
