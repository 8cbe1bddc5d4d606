import { MESSAGES, runScenario, sleep } from './scenario.ts';

// Every process loses its Redis connections and cannot reconnect for a while, twice: what a Redis restart looks
// like to them. The API's enqueue fails (the outbox keeps the work), workers lose their locks and blocking reads.
it(`loses and doubles nothing when Redis goes away mid-load and comes back, ${MESSAGES} emails`, async () => {
  let connectionsBeforeCut = 0;
  const { rig } = await runScenario('Redis down and up', { proxyRedis: true }, async (rig, reached) => {
    for (const fraction of [0.25, 0.6]) {
      await reached(fraction);
      connectionsBeforeCut ||= rig.redisProxy!.connectionCount();
      rig.redisProxy!.cut();
      await sleep(3000);
      rig.redisProxy!.restore();
    }
  });
  expect(rig.redisProxy!.connectionCount()).toBeGreaterThan(connectionsBeforeCut); // they did reconnect
});
