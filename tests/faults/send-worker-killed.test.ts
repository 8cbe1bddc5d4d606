import { killSendWorkersInTurn } from './injections.ts';
import { MESSAGES, runScenario } from './scenario.ts';

// SIGKILL gives a worker no chance to finish: jobs in flight (some with the provider already holding the email)
// must be taken over as stalled and sent once.
it(`loses and doubles nothing while send-workers are SIGKILLed and restarted, ${MESSAGES} emails`, async () => {
  const { verdict } = await runScenario('send-worker SIGKILL loop', { sendWorkers: 2 }, killSendWorkersInTurn);
  // some kills caught an email the provider had taken: it was asked again (same key) and sent it once
  expect(verdict.providerRequests).toBeGreaterThan(verdict.emailsAccepted);
});
