import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { eventsAccepted, eventsBody } from '../test/helpers/events-schema.js';

/**
 * The ceilings the service is compared with, measured in the same run: a bare Fastify
 * hello-world, a POST of the same events body that is only parsed and validated (the
 * service's own schema) and answered 202 without storing anything, and a POST answered with a
 * constant body as large as a session answer (argv[3] bytes), which is what writing the
 * session's items costs before any work.
 */
const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
app.setValidatorCompiler(validatorCompiler);
app.setSerializerCompiler(serializerCompiler);
app.get('/hello', async () => ({ hello: 'world' }));
app.post(
  '/parse-only',
  { schema: { body: eventsBody, response: { 202: eventsAccepted } } },
  async (request, reply) =>
    reply
      .code(202)
      .send({ data: { accepted: request.body.events.length, correlationId: crypto.randomUUID() } }),
);
const answerBytes = Number(process.argv[3] ?? 0);
const answer = Buffer.from(JSON.stringify({ data: 'x'.repeat(Math.max(0, answerBytes - 11)) }));
app.post('/answer', async (_request, reply) =>
  reply
    .code(201)
    .type('application/json; charset=utf-8')
    .send(answer as never),
);
const port = Number(process.argv[2] ?? 0);
const address = await app.listen({ port, host: '127.0.0.1' });
console.log(`listening ${address}`);
