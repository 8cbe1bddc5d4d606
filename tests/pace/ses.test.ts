import type { Rig } from '../faults/rig.ts';
import { liveOrgWithContacts, MESSAGES, runBroadcast, startPaceRig } from './pace.ts';

// SES throttles beyond the account's MaxSendRate (14 a second here): a broadcast through SES, whose rate Tidings reads
// from the account (GetAccount) rather than from configuration, fails nothing and keeps at least 0.9 of that rate.
const SES_RATE = 14;

let rig: Rig;
beforeAll(async () => {
  rig = await startPaceRig({ env: { EMAIL_PROVIDERS: 'ses' } });
  rig.ses.state.limit.ratePerSecond = SES_RATE;
});
afterAll(() => rig?.close());

it(`sends ${MESSAGES} emails through SES at ${SES_RATE} a second: none failed, at least 0.9 of the rate`, async () => {
  const org = await liveOrgWithContacts(rig, MESSAGES);
  const run = await runBroadcast(rig, org, MESSAGES);
  const rate = (MESSAGES - 1) / ((run.lastSentAt - run.firstSentAt) / 1000);
  console.log(`SES: ${run.sent} sent, ${run.failed} failed, ${rate.toFixed(2)} a second (${(rate / SES_RATE).toFixed(2)} of the rate), ${rig.ses.state.throttled} throttled`);
  expect({ sent: run.sent, failed: run.failed, sentEarly: run.sentEarly }).toEqual({ sent: MESSAGES, failed: 0, sentEarly: false });
  expect(rig.ses.state.emails).toHaveLength(MESSAGES);
  expect(rate / SES_RATE).toBeGreaterThanOrEqual(0.9);
});
