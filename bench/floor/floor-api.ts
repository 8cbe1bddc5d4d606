// The floor for message.send: the least a send can do. Look up the key hash, parse the body with zod, one INSERT,
// one queue add, 202. No auth cache, rate limit, idempotency, events or outbox. Run as its own process.
// POST /send-batch is the same for many messages at once (one INSERT of them all, one addBulk): what a batch can
// gain over single sends when each message still gets its row and its job.
import { createHash, randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Queue } from 'bullmq';
import { type Context, Hono } from 'hono';
import IORedis from 'ioredis';
import { Pool } from 'pg';
import { z } from 'zod';

const Send = z.object({ channelType: z.literal('email'), to: z.email(), subject: z.string().min(1), text: z.string().min(1) });

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const queue = new Queue('floor-email', { connection: redis, prefix: process.env.REDIS_PREFIX });

/** The caller's organization from its key, and its body parsed with `schema`; or the 401 / 400 to answer. */
async function accepted<T>(c: Context, schema: z.ZodType<T>): Promise<{ orgId: string; body: T } | Response> {
  const key = (c.req.header('authorization') ?? '').replace(/^Bearer /, '');
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query('SELECT "orgId" FROM "ApiKey" WHERE "keyHash" = $1', [hash]);
  if (rows.length === 0) return c.json({ code: 'UNAUTHORIZED', message: 'bad key' }, 401);
  const parsed = schema.safeParse(await c.req.json());
  if (!parsed.success) return c.json({ code: 'BAD_REQUEST', message: 'invalid' }, 400);
  return { orgId: rows[0].orgId, body: parsed.data };
}

const SendBatch = z.object({ messages: z.array(Send).min(1).max(100) });

const app = new Hono()
  .post('/send', async (c) => {
    const request = await accepted(c, Send);
    if (request instanceof Response) return request;
    const { orgId, body } = request;
    const id = randomUUID();
    await pool.query('INSERT INTO floor_messages (id, org_id, recipient, subject, body) VALUES ($1, $2, $3, $4, $5)', [id, orgId, body.to, body.subject, body.text]);
    await queue.add('send', { id }, { jobId: id, removeOnComplete: true });
    return c.json({ id, status: 'queued' }, 202);
  })
  .post('/send-batch', async (c) => {
    const request = await accepted(c, SendBatch);
    if (request instanceof Response) return request;
    const messages = request.body.messages.map((m) => ({ id: randomUUID(), ...m }));
    await pool.query(
      `INSERT INTO floor_messages (id, org_id, recipient, subject, body)
       SELECT id, $1, recipient, subject, body FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS m(id, recipient, subject, body)`,
      [request.orgId, messages.map((m) => m.id), messages.map((m) => m.to), messages.map((m) => m.subject), messages.map((m) => m.text)],
    );
    await queue.addBulk(messages.map(({ id }) => ({ name: 'send', data: { id }, opts: { jobId: id, removeOnComplete: true } })));
    return c.json({ data: messages.map(({ id }) => ({ id, status: 'queued' })) }, 202);
  });

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT) }, () => process.send?.('ready'));

// exits cleanly when stopped, so a profiled run (BENCH_CPU_PROF) writes its profile
process.once('SIGTERM', () => process.exit(0));
