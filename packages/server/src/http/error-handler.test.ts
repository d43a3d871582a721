import { Writable } from 'node:stream';
import { ErrorCode } from '@realmgate/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { registerErrorHandler } from './error-handler.js';

describe('error handler', () => {
    it('logs an AppError\'s internal detail and answers only the client-safe body (DESIGN.md habit 4)', async () => {
        const lines: string[] = [];
        const stream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
        const app = Fastify({ logger: { level: 'info', stream } });
        registerErrorHandler(app);
        app.get('/', async () => {
            throw new AppError(ErrorCode.ENTITY_CONFLICT, 'An entity with these unique values already exists.', { detail: 'unique violation: auth_realms_name_unique' });
        });
        const answer = await app.inject({ method: 'GET', url: '/' });
        await app.close();
        expect(answer.statusCode).toBe(409);
        expect(answer.json()).toEqual({ statusCode: 409, code: 'entity_conflict', message: 'An entity with these unique values already exists.' });
        expect(answer.body).not.toContain('auth_realms_name_unique');
        const logged = lines.map((line) => JSON.parse(line) as { detail?: string; code?: string }).find((line) => line.detail !== undefined);
        expect(logged).toMatchObject({ code: 'entity_conflict', detail: 'unique violation: auth_realms_name_unique' });
    });
});
