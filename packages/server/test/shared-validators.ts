import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

/*
 * One validator compiler for every test app of a test file: Fastify's own factory (the one each
 * app builds by default, with the app's Ajv options and shared schemas), kept across apps, and its
 * validators kept by schema text, so a route schema compiled for one suite's app is not compiled
 * again for the next (a file starts an app per suite and dialect, and compiling every route's
 * schemas was the largest part of an app's start). Other Ajv options or shared schemas get another
 * compiler (the factory's pool key), so a validator is reused only where Fastify would build the
 * same one.
 */

type BuildCompilerFromPool = ReturnType<typeof AjvCompiler>;
/** what Fastify passes to a validator compiler (the package's types describe Ajv's compile instead) */
type CompileRoute = (route: { schema: unknown; httpPart?: string; method?: string; url?: string }) => unknown;

const pool = AjvCompiler();
const memos = new WeakMap<object, CompileRoute>();

const buildValidator: BuildCompilerFromPool = (externalSchemas, options) => {
    const compile = pool(externalSchemas, options) as unknown as CompileRoute;
    let memo = memos.get(compile);
    if (!memo) {
        const validators = new Map<string, unknown>();
        memo = (route) => {
            // a factory given in the options makes Fastify treat the compiler as custom, and then
            // it no longer lowercases a headers schema's names: tests would validate headers
            // differently from production, so such a route must not pass here unnoticed
            if (route.httpPart === 'headers') throw new Error(`${route.method} ${route.url} declares a headers schema; test/shared-validators.ts would validate it unlike production (Fastify lowercases it only with its default compiler)`);
            const key = JSON.stringify(route.schema);
            if (!validators.has(key)) validators.set(key, compile(route));
            return validators.get(key);
        };
        memos.set(compile, memo);
    }
    return memo as unknown as ReturnType<BuildCompilerFromPool>;
};

export const sharedSchemaController: FastifyServerOptions['schemaController'] = { compilersFactory: { buildValidator } };
