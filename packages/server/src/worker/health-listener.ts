import { createServer, type Server } from 'node:http';
import type { WorkerHealth } from './runner.js';

/**
 * The worker's health listener (spec Endpoints: GET / on the worker process; Limits: WORKER_PORT,
 * default PORT): 200 while every sweep has succeeded within five minutes, 503 otherwise, with the
 * last success of each sweep. Plain node:http: the worker serves this one route and nothing else.
 */
export function createHealthServer(health: () => WorkerHealth): Server {
    return createServer((request, response) => {
        const path = (request.url ?? '/').split('?')[0];
        if ((request.method !== 'GET' && request.method !== 'HEAD') || path !== '/') {
            response.writeHead(404, { 'content-type': 'application/json', 'cache-control': 'no-store' });
            response.end(JSON.stringify({ code: 'not_found', message: 'The worker answers GET / only.' }));
            return;
        }
        const report = health();
        response.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : JSON.stringify({ status: report.ok ? 'ok' : 'unavailable', sweeps: report.sweeps }));
    });
}
