import { MESSAGES, runScenario, sleep } from './scenario.ts';

// Resend, the first of two email providers, answers 503 to everything for 30 s in the middle of the load: the same
// attempt of each message goes on to SMTP, Resend's circuit opens and spares it the calls, and once Resend is back
// it takes over again. Every message is delivered exactly once, by one of the two.
it(`delivers each of ${MESSAGES} emails once while the primary provider is down for 30 s`, async () => {
  const { verdict } = await runScenario(
    'primary email provider down 30 s',
    { env: { EMAIL_PROVIDERS: 'resend,smtp', PROVIDER_CIRCUIT_COOLDOWN_MS: '5000' } },
    async (rig, reached) => {
      await reached(0.2);
      rig.resend.failRandomly(1, [{ kind: 'status', status: 503 }]);
      await sleep(30_000);
      rig.resend.failRandomly(0, []);
    },
  );
  expect(verdict.acceptedBy.smtp).toBeGreaterThan(0); // the outage did happen, and SMTP took over
  expect(verdict.repeats).toEqual({});
});
