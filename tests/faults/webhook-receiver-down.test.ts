import { MESSAGES, runScenario, sleep } from './scenario.ts';

// The customer's endpoint refuses connections for 8 s: deliveries fail and are retried on the (fast) schedule, and
// every event arrives once it is back.
it(`delivers every webhook event after the receiver was down for a while, ${MESSAGES} emails`, async () => {
  const { verdict } = await runScenario('webhook receiver down 8 s', {}, async (rig, reached) => {
    await reached(0.2);
    await rig.stopReceiver();
    await sleep(8000);
    await rig.startReceiver();
  });
  expect(verdict.failedWebhookAttempts).toBeGreaterThan(0);
});
