import { MESSAGES, runScenario, sleep } from './scenario.ts';

// SIGKILL gives a worker no chance to finish: jobs in flight (some with the provider already holding the email)
// must be taken over as stalled and sent once. The provider answers after 500 ms, so kills find calls in flight.
it(`loses and doubles nothing while send-workers are SIGKILLed and restarted, ${MESSAGES} emails`, async () => {
  const { verdict } = await runScenario('send-worker SIGKILL loop', { sendWorkers: 2 }, async (rig, reached) => {
    rig.resend.state.respondAfterMs = 500;
    await reached(0.1);
    for (let kill = 0; kill < 6; kill += 1) {
      await rig.killAndRestartSendWorker(kill % 2);
      await sleep(1500);
    }
  });
  // some kills caught an email the provider had taken: it was asked again (same key) and sent it once
  expect(verdict.providerRequests).toBeGreaterThan(verdict.emailsAccepted);
});
