import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSelfProbe } from './self-probe.js';

describe('a self-probe', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('is heard only by its own fresh nonce, within its time', async () => {
        const sent: string[] = [];
        const probe = createSelfProbe(async (nonce) => sent.push(nonce), 2_000);
        const first = probe.run();
        await vi.advanceTimersByTimeAsync(0);
        probe.heard('someone-else');
        probe.heard(sent[0]!);
        expect(await first).toEqual({ heard: true });
        // an old nonce heard late does not answer the next probe
        const second = probe.run();
        await vi.advanceTimersByTimeAsync(0);
        probe.heard(sent[0]!);
        await vi.advanceTimersByTimeAsync(2_000);
        const outcome = await second;
        expect(outcome).toMatchObject({ heard: false, sent: true });
        expect(!outcome.heard && outcome.error.message).toMatch(/not heard back within 2000 ms/);
        expect(new Set(sent).size).toBe(2);
    });

    it('is not heard when its send fails, when a newer probe replaces it, or when cancelled', async () => {
        const failing = createSelfProbe(async () => {
            throw new Error('connection refused');
        }, 2_000);
        expect(await failing.run()).toEqual({ heard: false, sent: false, error: new Error('connection refused') });

        const probe = createSelfProbe(async () => undefined, 2_000);
        const replaced = probe.run();
        const current = probe.run();
        expect(await replaced).toMatchObject({ heard: false });
        probe.cancel();
        expect(await current).toMatchObject({ heard: false });
    });
});
