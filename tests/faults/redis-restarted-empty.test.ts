import { MESSAGES, runScenario } from './scenario.ts';

// Redis killed and started again with nothing in it (no persistence, as CI and `npm start` run it): every queued,
// delayed and active job is gone, and so are the job schedulers. The database still knows every message and delivery:
// the workers notice Redis came back without their data and sweep for what lost its job within seconds (twice the
// provider or webhook timeout), long before STRANDED_JOB_AFTER_MS (its default, 10 minutes, here), and the send-worker
// sets its schedulers up again when it reconnects. A slow provider makes sure jobs are waiting when Redis goes.
it(`loses and doubles nothing when Redis restarts empty mid-load, ${MESSAGES} emails`, async () => {
  let waitingWhenWiped = 0;
  await runScenario('Redis restarted empty', { privateRedis: true }, async (rig, reached) => {
    rig.resend.state.respondAfterMs = 300;
    await reached(0.4);
    waitingWhenWiped = await rig.deps.db.message.count({ where: { orgId: rig.org.orgId, status: 'queued' } });
    await rig.restartRedisEmpty();
  });
  expect(waitingWhenWiped).toBeGreaterThan(0); // their jobs were lost with Redis, and they were sent all the same
});
