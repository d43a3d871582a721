import { describe, expect, it } from 'vitest';
import { ageInDays, keysDueForRotation, SIGNING_KEY_ROTATION_DAYS } from './key-rotation.js';

const NOW = new Date('2026-06-30T12:00:00.000Z');
const daysAgo = (days: number, extraMs = 0) => new Date(NOW.getTime() - days * 86_400_000 - extraMs).toISOString();

describe('the overview\'s signing keys due for rotation', () => {
    it('counts whole days of age and reads no date as unknown', () => {
        expect(ageInDays(daysAgo(3, 1000), NOW)).toBe(3);
        expect(ageInDays(daysAgo(0), NOW)).toBe(0);
        expect(ageInDays(null, NOW)).toBeNull();
        expect(ageInDays('not a date', NOW)).toBeNull();
    });

    it('lists active signing keys older than the rotation period, oldest first, with their age', () => {
        const keys = [
            { id: 'fresh', use: 'sig', status: 'active', algorithm: 'RS256', createdAt: daysAgo(1) },
            { id: 'exactly', use: 'sig', status: 'active', algorithm: 'RS256', createdAt: daysAgo(SIGNING_KEY_ROTATION_DAYS) },
            { id: 'old', use: 'sig', status: 'active', algorithm: 'ES256', createdAt: daysAgo(SIGNING_KEY_ROTATION_DAYS + 1) },
            { id: 'older', use: 'sig', status: 'active', algorithm: 'RS256', createdAt: daysAgo(400) },
        ];
        expect(keysDueForRotation(keys, NOW)).toEqual([
            { id: 'older', algorithm: 'RS256', ageDays: 400 },
            { id: 'old', algorithm: 'ES256', ageDays: SIGNING_KEY_ROTATION_DAYS + 1 },
        ]);
    });

    it('leaves out disabled keys, encryption keys and keys without a creation date', () => {
        const keys = [
            { id: 'disabled', use: 'sig', status: 'disabled', createdAt: daysAgo(400) },
            { id: 'encryption', use: 'enc', status: 'active', createdAt: daysAgo(400) },
            { id: 'undated', use: 'sig', status: 'active', createdAt: null },
        ];
        expect(keysDueForRotation(keys, NOW)).toEqual([]);
    });
});
