import { MESSAGES, runScenario, sleep } from './scenario.ts';

// SIGKILL gives a worker no chance to finish: jobs in flight (some with the provider already holding the email)
// must be taken over as stalled and sent once.
it(`loses and doubles nothing while send-workers are SIGKILLed and restarted, ${MESSAGES} emails`, async () => {
  let kills = 0;
  await runScenario('send-worker SIGKILL loop', { sendWorkers: 2 }, async (rig, reached) => {
    await reached(0.1);
    for (; kills < 6; kills += 1) {
      await rig.killAndRestartSendWorker(kills % 2);
      await sleep(1500);
    }
  });
  expect(kills).toBe(6);
});
