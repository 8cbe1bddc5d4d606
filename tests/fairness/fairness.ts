import { makeOrganization, waitFor } from '@tidings/testing';
import { call, startRig, type Rig, type RigOptions } from '../faults/rig.ts';

export { call } from '../faults/rig.ts';

/** The abuser's size: contacts of its broadcast, deliveries of its replay (FAIRNESS_CONTACTS; CI runs a small one). */
export const CONTACTS = Number(process.env.FAIRNESS_CONTACTS || 2000);
/**
 * Org B's measurements per phase: single emails, PROBE_EVERY_MS apart (FAIRNESS_PROBE_EVERY_MS, 2 a second by
 * default: well within what B's share of one send-worker sends on a slow machine, so B never measures a backlog of
 * its own; CI's small run takes 10 a second, which still leaves B's send slots idle most of the time, to spend 10 s a
 * phase rather than 50). 100 make a p99 that is not simply the slowest one.
 */
export const PROBES = Number(process.env.FAIRNESS_PROBES || 100);
export const PROBE_EVERY_MS = Number(process.env.FAIRNESS_PROBE_EVERY_MS || 500);
/** The bound of issue 33: B's p99 during the abuse at most twice its baseline's plus this. */
const SLACK_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The fault suite's rig (the whole product as processes; its live organization is org B, whose webhook goes to the
 * rig's receiver) with one send-worker, plus org A in test mode, the abuser. Few send slots, so that the abuse is a
 * queue of many seconds at small sizes.
 */
export async function startFairnessRig(options: RigOptions = {}) {
  // the pool of the default configuration (the fault rig's 5 is for its many processes)
  const rig = await startRig({ sendWorkers: 1, ...options, env: { SEND_WORKER_CONCURRENCY: '5', DATABASE_POOL_SIZE: '10', ...options.env } });
  const abuser = await makeOrganization(rig.deps, { mode: 'test' });
  // the first sends of fresh processes load code and open connections: not part of any baseline
  await probe(rig, 'warm-up', 5);
  return { rig, abuser };
}

/** Latencies of org B's probes, ms: from the request to `sentAt`, and to its `message.sent` webhook's arrival. */
export type Latencies = { send: number[]; webhook: number[] };

/** When each of org B's messages was sent and its `message.sent` webhook arrived (epoch ms), once all of them are. */
async function doneAt(rig: Rig, ids: string[]): Promise<Map<string, { sentAt: number; webhookAt: number }> | null> {
  const rows = await rig.deps.db.message.findMany({ where: { id: { in: ids }, sentAt: { not: null } }, select: { id: true, sentAt: true } });
  if (rows.length < ids.length) return null;
  const webhookAt = new Map<string, number>();
  for (const request of rig.webhookRequests()) {
    const event = JSON.parse(request.body) as { type: string; data: { id: string } };
    if (event.type === 'message.sent' && !webhookAt.has(event.data.id)) webhookAt.set(event.data.id, request.at);
  }
  if (ids.some((id) => !webhookAt.has(id))) return null;
  return new Map(rows.map((r) => [r.id, { sentAt: r.sentAt!.getTime(), webhookAt: webhookAt.get(r.id)! }]));
}

/**
 * Org B (the rig's organization) sends `count` single emails, one every PROBE_EVERY_MS whatever happens to the
 * earlier ones (each one sent while a backlog is in its way waits for it), and returns their latencies, measured
 * from the moment each request left, once every one is sent and announced. `content`: the i-th email's subject and
 * text, or its template.
 */
export async function probe(rig: Rig, label: string, count = PROBES, content: (i: number) => object = (i) => ({ subject: `${label} ${i}`, text: 'probe' })): Promise<Latencies> {
  const startedAt = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const t0 = Date.now();
    const message = await call(rig, rig.org.key, 'POST', '/messages', { channelType: 'email', to: `probe${i}@example.com`, ...content(i) });
    startedAt.set(message.id, t0);
    await sleep(Math.max(0, t0 + PROBE_EVERY_MS - Date.now()));
  }
  const ids = [...startedAt.keys()];
  const done = await waitFor(() => doneAt(rig, ids), 600_000, `org B's ${label} probes to be sent and announced`);
  return { send: ids.map((id) => done.get(id)!.sentAt - startedAt.get(id)!), webhook: ids.map((id) => done.get(id)!.webhookAt - startedAt.get(id)!) };
}

/** The `p`th percentile (nearest rank). */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((sorted.length * p) / 100) - 1)] ?? 0;
}

/** The 99th percentile (nearest rank). */
export const p99 = (values: number[]) => percentile(values, 99);

/** The most B's p99 may be during the abuse: twice the baseline's plus a second. */
export const boundOf = (baselineP99: number) => 2 * baselineP99 + SLACK_MS;

/**
 * Logs the figures of both latencies and checks those of `kinds` (B's send and webhook p99 during the abuse, by
 * default) against the bound of its baseline.
 */
export function expectWithinBound(scenario: string, baseline: Latencies, during: Latencies, kinds: (keyof Latencies)[] = ['send', 'webhook']): void {
  const figures = (['send', 'webhook'] as const).map((kind) => ({ kind, baseline: p99(baseline[kind]), during: p99(during[kind]), bound: boundOf(p99(baseline[kind])) }));
  const p50s = (['send', 'webhook'] as const).map((kind) => `${kind} p50 ${percentile(baseline[kind], 50)} ms alone, ${percentile(during[kind], 50)} ms during`);
  console.log(`${scenario}: ${figures.map((f) => `${f.kind} p99 ${f.baseline} ms alone, ${f.during} ms during (bound ${f.bound} ms)`).join('; ')}; ${p50s.join('; ')}`);
  console.log(`${scenario}, during, ms, in order: send ${during.send.join(' ')}; webhook ${during.webhook.join(' ')}`);
  // compared as [kind, within] so a failure names which latency broke the bound
  const checked = figures.filter((f) => kinds.includes(f.kind));
  expect(checked.map((f) => [f.kind, f.during <= f.bound])).toEqual(checked.map((f) => [f.kind, true]));
}
