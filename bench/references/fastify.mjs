/**
 * The practical ceiling for an HTTP answer on this machine: a bare Fastify route, GET and a small
 * JSON POST, with the same logger setting as the server under test (off).
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
app.post('/echo', async (request) => ({ received: request.body }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
