import { cutTwice } from './injections.ts';
import { MESSAGES, runScenario } from './scenario.ts';

// Every process's Postgres connections are dropped and new ones refused for a while, twice: queries in flight
// fail (some after their commit), pools must reconnect, and no job may be given up on because of it.
it(`loses and doubles nothing when Postgres connections are dropped mid-load, ${MESSAGES} emails`, async () => {
  let connectionsBeforeCut = 0;
  const { rig } = await runScenario('Postgres connections dropped', { proxyDatabase: true }, async (rig, reached) => {
    connectionsBeforeCut = await cutTwice(rig.dbProxy!, reached);
  });
  expect(rig.dbProxy!.connectionCount()).toBeGreaterThan(connectionsBeforeCut); // they did reconnect
});
