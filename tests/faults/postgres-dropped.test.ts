import { MESSAGES, runScenario, sleep } from './scenario.ts';

// Every process's Postgres connections are dropped and new ones refused for a while, twice: queries in flight
// fail (some after their commit), pools must reconnect, and no job may be given up on because of it.
it(`loses and doubles nothing when Postgres connections are dropped mid-load, ${MESSAGES} emails`, async () => {
  let connectionsBeforeCut = 0;
  const { rig } = await runScenario('Postgres connections dropped', { proxyDatabase: true }, async (rig, reached) => {
    for (const fraction of [0.25, 0.6]) {
      await reached(fraction);
      connectionsBeforeCut ||= rig.dbProxy!.connectionCount();
      rig.dbProxy!.cut();
      await sleep(3000);
      rig.dbProxy!.restore();
    }
  });
  expect(rig.dbProxy!.connectionCount()).toBeGreaterThan(connectionsBeforeCut); // they did reconnect
});
