import { MESSAGES, runScenario } from './scenario.ts';

// The provider fails 30% of calls (500, 503, or no answer until our timeout) and leaves another 10% of the emails
// it accepted unanswered: those retries must come back with the same Idempotency-Key and send nothing twice.
it(`sends each email once while the provider fails a third of the calls, ${MESSAGES} emails`, async () => {
  const { verdict } = await runScenario('provider failing 30%', { mayFail: true, env: { SEND_MAX_ATTEMPTS: '10', PROVIDER_TIMEOUT_MS: '1000' } }, async (rig) => {
    rig.resend.failRandomly(0.3, [{ kind: 'status', status: 500 }, { kind: 'status', status: 503 }, { kind: 'hang' }]);
    rig.resend.state.hangAfterAcceptRate = 0.1;
  });
  expect(verdict.providerRequests).toBeGreaterThan(verdict.emailsAccepted * 1.3); // the faults did happen
});
