import { newId } from '@tidings/core';
import { waitFor } from '@tidings/testing';
import type { Rig } from '../faults/rig.ts';
import { call, CONTACTS, expectWithinBound, probe, startFairnessRig, type Latencies } from './fairness.ts';

let rig: Rig;
let abuser: { orgId: string; key: string };
let baseline: Latencies;

/** A's contacts: four times FAIRNESS_CONTACTS (8,000 at full size, as in the attack; 4,000 in CI). */
const SEGMENT_CONTACTS = 4 * CONTACTS;
/** Concurrent segment.update requests, as in the attack. */
const UPDATES_AT_ONCE = 16;
/**
 * Each of A's 16 goes on with its next update a second after the last one started: the pace of the attack, whose
 * updates each counted in the request for about a second (without a pace, 16 loops of cheap requests are a request
 * flood, which rate limits bound, not this scenario).
 */
const UPDATE_EVERY_MS = 1_000;

/** Criteria of 20 long `contains` (1,900 characters in all, under the 2,000 cap); `n` makes each update's differ. */
const expensiveCriteria = (n: number) => ({
  any: Array.from({ length: 20 }, (_, i) => ({ field: 'email', op: 'contains', value: `${n}-${i}-${'q'.repeat(85)}`.slice(0, 95) })),
});

beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig());
  const ids = Array.from({ length: SEGMENT_CONTACTS }, () => newId('con'));
  await rig.deps.db.$executeRaw`
    INSERT INTO "Contact" ("id", "orgId", "email", "firstName", "createdAt", "updatedAt")
    SELECT id, ${abuser.orgId}, 'a' || n || '@' || lower(id) || '.example.com', 'A' || n, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
  baseline = await probe(rig, 'baseline');
});

afterAll(() => rig?.close());

it(`org B's single emails stay within the bound while org A floods updates of a segment of 20 long contains over ${SEGMENT_CONTACTS} contacts`, async () => {
  const segment = await call(rig, abuser.key, 'POST', '/segments', { name: 'Costly', criteria: expensiveCriteria(0) });
  let updates = 0;
  let flooding = true;
  // A keeps UPDATES_AT_ONCE updates going for as long as B measures, each with criteria of its own
  const flood = Promise.all(
    Array.from({ length: UPDATES_AT_ONCE }, async () => {
      while (flooding) {
        const startedAt = Date.now();
        await call(rig, abuser.key, 'PATCH', `/segments/${segment.id}`, { criteria: expensiveCriteria(++updates) });
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + UPDATE_EVERY_MS - Date.now())));
      }
    }),
  );
  await waitFor(() => updates > UPDATES_AT_ONCE, 120_000, "A's first updates");
  const during = await probe(rig, 'during a segment flood');
  flooding = false;
  await flood;
  console.log(`segment flood: ${updates} updates of A`);
  expectWithinBound(`segment flood of ${UPDATES_AT_ONCE} at once over ${SEGMENT_CONTACTS} contacts`, baseline, during);
  // the latest criteria are counted in the background, by the send-worker's recount
  await waitFor(
    async () => {
      const latest = await call(rig, abuser.key, 'GET', `/segments/${segment.id}`);
      return latest.countedAt >= latest.updatedAt;
    },
    120_000,
    "the latest criteria's count",
  );
});
