// The floor for the send-worker: one provider HTTP call and one UPDATE per job, nothing else. Run as its own
// process; the runner sees it ready through BullMQ's worker list.
import { Worker } from 'bullmq';
import IORedis from 'ioredis';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const providerUrl = process.env.PROVIDER_URL!;

new Worker(
  'floor-email',
  async (job) => {
    const res = await fetch(`${providerUrl}/emails`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer re_floor' },
      body: JSON.stringify({ from: 'floor@bench.test', to: ['to@bench.test'], subject: 'floor', text: job.data.id }),
    });
    if (!res.ok) throw new Error(`provider ${res.status}`);
    await res.arrayBuffer();
    await pool.query(`UPDATE floor_messages SET status = 'sent' WHERE id = $1`, [job.data.id]);
  },
  { connection: redis, prefix: process.env.REDIS_PREFIX, concurrency: Number(process.env.CONCURRENCY ?? 20), removeOnComplete: { count: 0 } },
);

// exits cleanly when stopped, so a profiled run (BENCH_CPU_PROF) writes its profile
process.once('SIGTERM', () => process.exit(0));
