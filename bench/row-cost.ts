// What Postgres alone spends (CPU of its backend, per 1,000 messages) on the rows message.sendBatch writes, in
// batches of 100: the Message row alone, with its first status-history entry, and with the outbox row inserted and
// deleted, against the floor's one-row insert. npm run bench:row-cost [messages=20000]
import './env.ts'; // first: .env fills the environment before anything reads it
import { Client } from 'pg';
import { cpuSecondsOf, freshBenchDatabase, progress } from './harness.ts';

const total = Number(process.argv[2] ?? 20_000);
const BATCH = 100;

function messageRows(orgId: string, offset: number) {
  const now = new Date().toISOString();
  return Array.from({ length: BATCH }, (_, i) => ({
    id: `msg_rowcost${String(offset + i).padStart(12, '0')}`,
    orgId,
    channelType: 'email',
    direction: 'outbound',
    to: `reader${offset + i}@example.com`,
    from: 'bench@example.com',
    subject: 'Bench',
    text: 'Hello from the benchmark',
    status: 'queued',
    provider: 'sandbox',
    mode: 'test',
    cc: [],
    bcc: [],
    replyTo: [],
    headers: {},
    mediaUrls: [],
    attachments: [],
    attempts: 0,
    tags: [],
    metadata: {},
    trackOpens: false,
    trackClicks: false,
    createdAt: now,
    updatedAt: now,
  }));
}

const statements: Record<string, string> = {
  'message row': `INSERT INTO "Message" SELECT * FROM jsonb_populate_recordset(NULL::"Message", $1::jsonb)`,
  'message and history': `WITH m AS (INSERT INTO "Message" SELECT * FROM jsonb_populate_recordset(NULL::"Message", $1::jsonb) RETURNING "id", "status", "createdAt")
    INSERT INTO "MessageStatusEvent" ("messageId", "status", "createdAt") SELECT "id", "status", "createdAt" FROM m`,
  'message, history and outbox row': `WITH m AS (INSERT INTO "Message" SELECT * FROM jsonb_populate_recordset(NULL::"Message", $1::jsonb) RETURNING "id", "status", "createdAt"),
    h AS (INSERT INTO "MessageStatusEvent" ("messageId", "status", "createdAt") SELECT "id", "status", "createdAt" FROM m)
    INSERT INTO "OutboxEntry" ("queue", "jobId", "createdAt") SELECT 'email', "id", "createdAt" FROM m`,
};

async function main() {
  const url = await freshBenchDatabase('tidings_bench_row_cost');
  const db = new Client({ connectionString: url });
  await db.connect();
  await db.query(`SET jit = off`);
  const orgId = 'org_rowcost';
  await db.query(`INSERT INTO "Organization" ("id", "name", "createdAt", "updatedAt") VALUES ($1, 'Row cost', now(), now())`, [orgId]);
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = rows[0]!.pid;
  const results: Record<string, number> = {};
  let offset = 0;
  const nextBatch = () => {
    offset += BATCH;
    return [JSON.stringify(messageRows(orgId, offset))];
  };
  for (const [name, sql] of Object.entries(statements)) {
    await db.query({ name, text: sql, values: nextBatch() }); // prepared and planned before the count starts
    const before = cpuSecondsOf(backend);
    for (let sent = 0; sent < total; sent += BATCH) {
      await db.query({ name, text: sql, values: nextBatch() });
      if (name.includes('outbox')) await db.query(`DELETE FROM "OutboxEntry" WHERE "jobId" LIKE 'msg_rowcost%'`);
    }
    results[name] = Math.round(((cpuSecondsOf(backend) - before) / total) * 1000 * 1000) / 1000;
    progress(`${name}: ${results[name]} s of Postgres CPU per 1,000 messages`);
  }
  const before = cpuSecondsOf(backend);
  for (let sent = 0; sent < total; sent += 1) {
    await db.query({
      name: 'floor',
      text: 'INSERT INTO floor_messages (id, org_id, recipient, subject, body) VALUES (gen_random_uuid(), $1, $2, $3, $4)',
      values: [orgId, `reader${sent}@example.com`, 'Bench', 'Hello from the benchmark'],
    });
  }
  results['floor one-row insert'] = Math.round(((cpuSecondsOf(backend) - before) / total) * 1000 * 1000) / 1000;
  progress(`floor: ${results['floor one-row insert']} s per 1,000`);
  console.table(results);
  await db.end();
}

void main();
