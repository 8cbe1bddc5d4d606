import { MESSAGES, runScenario, sleep } from './scenario.ts';

// Half SMS (Telnyx first, Twilio when Telnyx fails: it fails a third of the calls) and half email over SMTP, while
// send-workers are SIGKILLed in a loop. None of these providers takes an idempotency key, and each answers after
// 500 ms, so kills catch calls the provider has already accepted: the scenario reports the repeats that could not be
// prevented and checks that each one is explained by a call whose answer was lost (an unanswered claim).
it(`loses nothing while send-workers are SIGKILLed with SMS and SMTP load, ${MESSAGES} messages`, async () => {
  const { verdict } = await runScenario(
    'send-worker SIGKILL loop, SMS (Telnyx, Twilio) and SMTP',
    {
      sendWorkers: 2,
      mayRepeat: true,
      channelOf: (i) => (i % 2 === 0 ? 'sms' : 'email'),
      env: { EMAIL_PROVIDERS: 'smtp', SMS_PROVIDERS: 'telnyx,twilio', PROVIDER_CIRCUIT_FAILURES: '1000' },
    },
    async (rig, reached) => {
      rig.telnyx.state.respondAfterMs = 500;
      rig.twilio.state.respondAfterMs = 500;
      rig.smtp.delayAcceptMs = 500;
      rig.telnyx.failRandomly(0.33, [{ kind: 'status', status: 503 }]);
      await reached(0.1);
      for (let kill = 0; kill < 6; kill += 1) {
        await rig.killAndRestartSendWorker(kill % 2);
        await sleep(1500);
      }
    },
  );
  expect(verdict.acceptedBy.telnyx).toBeGreaterThan(0);
  expect(verdict.acceptedBy.twilio).toBeGreaterThan(0);
  expect(verdict.acceptedBy.smtp).toBeGreaterThan(0);
});
