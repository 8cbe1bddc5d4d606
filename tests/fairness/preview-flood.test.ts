import { waitFor } from '@tidings/testing';
import type { Rig } from '../faults/rig.ts';
import { call, expectWithinBound, probe, startFairnessRig, type Latencies } from './fairness.ts';

let rig: Rig;
let abuser: { orgId: string; key: string };
let baseline: Latencies;
let templateOfB: string;

/** Concurrent previews of A's template, as in the attack: 24 at a time. */
const PREVIEWS_AT_ONCE = 24;

/** B's probes render a small template of B's own (a render thread's work, as any templated send). */
const templated = (i: number) => ({ templateId: templateOfB, variables: { code: String(i) } });

beforeAll(async () => {
  ({ rig, abuser } = await startFairnessRig());
  templateOfB = (await call(rig, rig.org.key, 'POST', '/templates', { name: 'Code', channelType: 'email', subject: 'Your code', text: 'Code {{ code }}' })).id;
  baseline = await probe(rig, 'baseline', undefined, templated);
});

afterAll(() => rig?.close());

it("org B's template sends stay within the bound while org A floods previews of a 511 KB template that runs out of budget", async () => {
  // 500 KB of text to parse and copy, and a loop that runs until the render budget stops it
  const html = `<p>${'lorem ipsum '.repeat(42_000)}</p>{% for i in (1..100000000) %}{{ i }}{% endfor %}`;
  const template = await call(rig, abuser.key, 'POST', '/templates', { name: 'Huge', channelType: 'email', subject: 'Huge', html });
  let previews = 0;
  let refused = 0;
  let flooding = true;
  const preview = async () => {
    const response = await fetch(`${rig.apiUrl}/v1/templates/${template.id}/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${abuser.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ variables: {} }),
    });
    await response.arrayBuffer();
    previews += 1;
    if (response.status === 400) refused += 1;
  };
  // A keeps PREVIEWS_AT_ONCE previews in flight for as long as B measures
  const flood = Promise.all(
    Array.from({ length: PREVIEWS_AT_ONCE }, async () => {
      while (flooding) await preview();
    }),
  );
  await waitFor(() => previews > 0, 120_000, "A's first preview");
  const during = await probe(rig, 'during a preview flood', undefined, templated);
  flooding = false;
  await flood;
  console.log(`preview flood: ${previews} previews of A, ${refused} refused for the render budget`);
  expectWithinBound(`preview flood of ${PREVIEWS_AT_ONCE} at once`, baseline, during);
  // the budget refused A's previews, as it should: the flood was the expensive kind
  expect(refused).toBe(previews);
});
