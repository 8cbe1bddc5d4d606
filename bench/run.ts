// npm run bench: the real apps against the floor (bench/floor), in one run, over loopback, on a fresh database:
// message.send and message.sendBatch throughput, send-worker drain, webhook fan-out, contact.bulkCreate, message.list
// at 1M messages, the click redirect against message.list pages, a broadcast's fan-out and delivery, and the processes' peak RSS. Writes bench/results/latest.json and prints a table.
// Sizes by environment, for a quick run: BENCH_SECONDS (10), BENCH_DRAIN_MESSAGES (20000), BENCH_LIST_ROWS (1000000),
// BENCH_WEBHOOK_EVENTS (5000), BENCH_CONTACT_RUNS (5), BENCH_CLICK_MESSAGES (5000), BENCH_BROADCAST_CONTACTS (100000). BENCH_CPU_PROF=1 writes the
// child processes' CPU profiles.
import './env.ts'; // first: .env fills the environment before anything reads it
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/bootstrap';
import { createOrganization } from '@tidings/core';
import { deleteKeys, freshBenchDatabase, progress, ratio, root, startApi, stopProcess, type Bench } from './harness.ts';
import { measureBroadcast } from './phases/broadcast.ts';
import { BATCH_CONNECTIONS, measureBatch } from './phases/batch.ts';
import { measureContacts } from './phases/contacts.ts';
import { LIST_CONNECTIONS, measureList } from './phases/list.ts';
import { measureClickRedirect } from './phases/click-redirect.ts';
import { measureApiSend, measureFloor, SEND_CONNECTIONS } from './phases/send.ts';
import { measureTracedSend } from './phases/send-traced.ts';
import { ATTACHMENT_CONNECTIONS, measureSendWithAttachment } from './phases/send-attachment.ts';
import { measureSmtpSubmission } from './phases/smtp.ts';
import { measureWebhooks } from './phases/webhooks.ts';
import { measureWorkerDrain } from './phases/worker-drain.ts';
import { measurePacedDrain } from './phases/paced-drain.ts';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = setting('BENCH_SECONDS', 10);
const DRAIN_MESSAGES = setting('BENCH_DRAIN_MESSAGES', 20_000);
const PACED_MESSAGES = setting('BENCH_PACED_MESSAGES', 10_000);
const LIST_ROWS = setting('BENCH_LIST_ROWS', 1_000_000);
const WEBHOOK_EVENTS = setting('BENCH_WEBHOOK_EVENTS', 5_000);
const CONTACT_RUNS = setting('BENCH_CONTACT_RUNS', 5);
const BROADCAST_CONTACTS = setting('BENCH_BROADCAST_CONTACTS', 100_000);
const CLICK_MESSAGES = setting('BENCH_CLICK_MESSAGES', 5_000);
async function main() {
  progress('preparing a fresh database');
  // its own database on DATABASE_URL's server, dropped and created again at each run
  const databaseUrl = await freshBenchDatabase('tidings_bench_run');
  const runPrefix = `bench-${Date.now()}`;
  // TRACKING_RATE_LIMIT: the click phase sends every GET /c/{token} from one address (600 a minute by default)
  const env = { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000', TRACKING_RATE_LIMIT: '100000000', DATABASE_POOL_SIZE: '10' };
  const deps = openDeps(loadConfig({ ...process.env, ...env, REDIS_PREFIX: runPrefix, WEBHOOK_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'silent' }), 'bench');
  const bench: Bench = { deps, env, prefix: (phase) => `${runPrefix}-${phase}`, seconds: SECONDS };
  try {
    const { apiKey } = await createOrganization(deps, { name: 'Bench', mode: 'test' });
    const floor = await measureFloor(bench, apiKey.key);
    const floorSend = floor.send;
    const api = await startApi(bench);
    const send = await measureApiSend(bench, api, apiKey.key);
    const traced = await measureTracedSend(bench, api, apiKey.key);
    const withAttachment = await measureSendWithAttachment(bench, api, apiKey.key);
    const smtp = await measureSmtpSubmission(bench, api, apiKey.key);
    const batch = await measureBatch(bench, api, apiKey.key);
    const contacts = await measureContacts(bench, api, apiKey.key, CONTACT_RUNS);
    const list = await measureList(bench, api, LIST_ROWS);
    // the list phase's messages (ids msg_list0000000001...) are the ones clicked
    const clickedIds = Array.from({ length: Math.min(LIST_ROWS, CLICK_MESSAGES) }, (_, i) => `msg_list${String(i + 1).padStart(10, '0')}`);
    const clickRedirect = await measureClickRedirect(bench, api, clickedIds, list.all);
    await stopProcess(api.child);
    // The API phases' messages (hundreds of thousands, queued for a worker that never ran) are done with: left queued,
    // the send-workers of later phases would find them stranded after ten minutes and re-add and send 10,000 a minute
    // beside what those phases measure.
    await deps.db.$executeRaw`UPDATE "Message" SET "status" = 'canceled' WHERE "status" IN ('queued', 'sending', 'scheduled')`;
    const drain = await measureWorkerDrain(bench, DRAIN_MESSAGES);
    const pacedDrain = await measurePacedDrain(bench, PACED_MESSAGES);
    const webhooks = await measureWebhooks(bench, WEBHOOK_EVENTS);
    const broadcast = await measureBroadcast(bench, BROADCAST_CONTACTS);

    const results = {
      api: {
        throughput: send.requestsPerSecond,
        p50: send.p50,
        p99: send.p99,
        floorThroughput: floorSend.requestsPerSecond,
        floorP99: floorSend.p99,
        ratio: ratio(send.requestsPerSecond, floorSend.requestsPerSecond),
        p99Ratio: ratio(send.p99, floorSend.p99),
        connections: SEND_CONNECTIONS,
        errors: send.errors,
        statusCodes: send.statusCodes,
        floorErrors: floorSend.errors,
      },
      // the same load on an API exporting every span: the cost of tracing (goal: at most 10 %)
      // (off and on loaded in turns, off-on-on-off: phases/send-traced.ts)
      tracing: {
        throughput: traced.on.requestsPerSecond,
        p99: traced.on.p99,
        offThroughput: traced.off.requestsPerSecond,
        offP99: traced.off.p99,
        ratio: traced.ratio,
        errors: traced.on.errors + traced.off.errors,
      },
      batch: {
        messagesPerSecond: batch.messagesPerSecond,
        // the goal compares with the floor's own batches of 100 (at least 0.6)
        ratio: ratio(batch.messagesPerSecond, floor.batch.messagesPerSecond),
        // the floor's own batches (a row and a job per message, nothing else): how far any batch gets on this machine
        floorMessagesPerSecond: floor.batch.messagesPerSecond,
        floorRatio: ratio(floor.batch.messagesPerSecond, floorSend.requestsPerSecond),
        floorErrors: floor.batch.errors,
        p50: batch.p50,
        p99: batch.p99,
        connections: BATCH_CONNECTIONS,
        errors: batch.errors,
        statusCodes: batch.statusCodes,
      },
      sendWithAttachment: {
        connections: ATTACHMENT_CONNECTIONS,
        throughput: withAttachment.requestsPerSecond,
        p50: withAttachment.p50,
        p99: withAttachment.p99,
        apiPeakRssMiB: withAttachment.peakRssMiB,
        errors: withAttachment.errors,
      },
      // SMTP submission over 10 pooled connections against message.send over HTTP on 10 (goal: at least 0.5)
      smtp,
      worker: {
        messagesPerSecond: drain.real.messagesPerSecond,
        floorMessagesPerSecond: drain.floor.messagesPerSecond,
        ratio: drain.ratio,
        messages: DRAIN_MESSAGES,
        seconds: drain.real.seconds,
        floorSeconds: drain.floor.seconds,
        failed: drain.real.failed,
      },
      // the drain against a Resend at 5 requests per second, through its batch endpoint (goal: ratio >= 0.9 of 500/s)
      pacedDrain,
      webhooks: { deliveriesPerSecond: webhooks.deliveriesPerSecond, events: webhooks.events, seconds: webhooks.seconds },
      broadcast,
      contacts: { bulkCreateMs: contacts.bulkCreateMs, minMs: contacts.minMs, maxMs: contacts.maxMs, runs: contacts.runs, size: 1000 },
      list: {
        rows: LIST_ROWS,
        limit: list.limit,
        connections: LIST_CONNECTIONS,
        p50: list.all.p50,
        p99: list.all.p99,
        throughput: list.all.requestsPerSecond,
        filteredStatus: list.filteredStatus,
        filteredP50: list.filtered.p50,
        filteredP99: list.filtered.p99,
        filteredThroughput: list.filtered.requestsPerSecond,
        errors: list.all.errors + list.filtered.errors,
      },
      // GET /c/{token}, each a first click (one insert), on the list's connections (goal: at least message.list's pages/s)
      clickRedirect,
      memory: { apiPeakRssMiB: send.peakRssMiB, sendWorkerPeakRssMiB: drain.real.peakRssMiB, webhookWorkerPeakRssMiB: webhooks.peakRssMiB },
      machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10) },
    };
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(path.join(root, 'bench/results/latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    printTable(results);
  } finally {
    await deleteKeys(deps.redis, runPrefix);
    await deps.close();
  }
  process.exit(0); // the in-process schema engine of `migrate` would keep the process alive
}

function printTable(r: {
  api: { throughput: number; p50: number; p99: number; floorThroughput: number; floorP99: number; ratio: number; p99Ratio: number; errors: number };
  tracing: { throughput: number; p99: number; offThroughput: number; offP99: number; ratio: number; errors: number };
  batch: { messagesPerSecond: number; ratio: number; errors: number; floorMessagesPerSecond: number; floorRatio: number; floorErrors: number };
  sendWithAttachment: { throughput: number; p99: number; apiPeakRssMiB: number; errors: number };
  smtp: { messagesPerSecond: number; p99: number; httpRequestsPerSecond: number; ratio: number; errors: number; peakRssMiB: number; isBuilt: boolean };
  worker: { messagesPerSecond: number; floorMessagesPerSecond: number; ratio: number; failed: number };
  pacedDrain: { messagesPerSecond: number; ratio: number; failed: number };
  webhooks: { deliveriesPerSecond: number };
  broadcast: {
    contacts: number;
    messagesCreatedPerSecond: number;
    sentPerSecond: number;
    deliverSeconds: number;
    topicMembers?: number;
    topicMessagesCreatedPerSecond?: number;
  };
  contacts: { bulkCreateMs: number };
  list: { rows: number; p99: number; filteredStatus: string; filteredP99: number; errors: number };
  clickRedirect: { throughput: number; p99: number; listThroughput: number; ratio: number; errors: number };
  memory: { apiPeakRssMiB: number; sendWorkerPeakRssMiB: number; webhookWorkerPeakRssMiB: number };
}) {
  const row = (value: number | string, floor: number | string, ratioToFloor: number | string, goal: string, errors: number | string = '') => ({
    value,
    floor,
    ratio: ratioToFloor,
    goal,
    errors,
  });
  console.table({
    'message.send req/s': row(r.api.throughput, r.api.floorThroughput, r.api.ratio, '>= 0.9', r.api.errors),
    'message.send p50 ms': row(r.api.p50, '', '', ''),
    'message.send p99 ms': row(r.api.p99, r.api.floorP99, r.api.p99Ratio, '<= 1.5'),
    'message.send req/s, tracing on (ratio: to off, in turns)': row(r.tracing.throughput, r.tracing.offThroughput, r.tracing.ratio, '>= 0.9', r.tracing.errors),
    'message.send p99 ms, tracing on': row(r.tracing.p99, r.tracing.offP99, '', ''),
    'message.send + 1 MiB attachment req/s (10 conn.)': row(r.sendWithAttachment.throughput, '', '', '', r.sendWithAttachment.errors),
    'message.send + 1 MiB attachment p99 ms': row(r.sendWithAttachment.p99, '', '', ''),
    'API peak RSS MiB (1 MiB attachments)': row(r.sendWithAttachment.apiPeakRssMiB, '', '', ''),
    'SMTP submission messages/s (10 pooled conn.; ratio: to HTTP on 10)': row(r.smtp.messagesPerSecond, r.smtp.httpRequestsPerSecond, r.smtp.ratio, '>= 0.5', r.smtp.errors),
    'SMTP submission p99 ms': row(r.smtp.p99, '', '', ''),
    [`SMTP app peak RSS MiB (${r.smtp.isBuilt ? 'built' : 'from source'})`]: row(r.smtp.peakRssMiB, '', '', '< 200'),
    'sendBatch(100) messages/s': row(r.batch.messagesPerSecond, r.batch.floorMessagesPerSecond, r.batch.ratio, '>= 0.6', r.batch.errors),
    "floor's own batches of 100, messages/s (ratio: to its single sends)": row(r.batch.floorMessagesPerSecond, r.api.floorThroughput, r.batch.floorRatio, '', r.batch.floorErrors),
    'send-worker drain messages/s': row(r.worker.messagesPerSecond, r.worker.floorMessagesPerSecond, r.worker.ratio, '>= 0.9', r.worker.failed),
    'drain against a Resend at 5 requests/s (ratio: to 500/s)': row(r.pacedDrain.messagesPerSecond, 500, r.pacedDrain.ratio, '>= 0.9', r.pacedDrain.failed),
    'webhook deliveries/s': row(r.webhooks.deliveriesPerSecond, '', '', ''),
    [`broadcast to ${r.broadcast.contacts}: messages created/s`]: row(r.broadcast.messagesCreatedPerSecond, '', '', '>= 10,000'),
    'broadcast: messages sent/s by 1 send-worker (ratio: to the drain)': row(
      r.broadcast.sentPerSecond,
      r.worker.messagesPerSecond,
      ratio(r.broadcast.sentPerSecond, r.worker.messagesPerSecond),
      '>= 0.8',
    ),
    [`broadcast to a topic of ${r.broadcast.topicMembers ?? '-'}: messages created/s`]: row(r.broadcast.topicMessagesCreatedPerSecond ?? '', '', '', 'as the segment broadcast'),
    'contact.bulkCreate 1,000 ms': row(r.contacts.bulkCreateMs, '', '', ''),
    [`message.list p99 ms (${r.list.rows} rows)`]: row(r.list.p99, '', '', '', r.list.errors),
    [`message.list status=${r.list.filteredStatus} p99 ms`]: row(r.list.filteredP99, '', '', ''),
    'click redirect req/s (ratio: to message.list pages)': row(r.clickRedirect.throughput, r.clickRedirect.listThroughput, r.clickRedirect.ratio, '>= 1', r.clickRedirect.errors),
    'click redirect p99 ms': row(r.clickRedirect.p99, '', '', ''),
    'API peak RSS MiB (send load)': row(r.memory.apiPeakRssMiB, '', '', ''),
    'send-worker peak RSS MiB': row(r.memory.sendWorkerPeakRssMiB, '', '', ''),
    'webhook-worker peak RSS MiB': row(r.memory.webhookWorkerPeakRssMiB, '', '', ''),
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
