import { randomUUID } from 'node:crypto';
import { makeOrganization } from '@tidings/testing';
import { waitUntil } from './rig.ts';
import { MESSAGES, runScenario, sleep } from './scenario.ts';

/** What a client without an Idempotency-Key saw of one message.send during the outage. */
type Probe = { status: number; retryAfter: string | null; ms: number };

// Redis away for 8 s mid-load. Requests that need it (every key's rate limit) answer 503 with Retry-After within a few
// seconds instead of waiting out the outage, and a refused request never creates its message afterwards (a client
// without an Idempotency-Key retries, and would get two). The load's careful client retries its 503s with its key and
// loses and doubles nothing; once Redis is back everything works.
it(`answers 503 fast while Redis is down and creates nothing after it, ${MESSAGES} emails`, async () => {
  const subject = `probe ${randomUUID()}`;
  const probes: Probe[] = [];
  let created = -1;
  await runScenario('Redis outage, fail fast', { proxyRedis: true }, async (rig, reached) => {
    // the probes come from an organization of their own, so the load's count stays the load's
    const prober = await makeOrganization(rig.deps, { mode: 'test' });
    await reached(0.3);
    rig.redisProxy!.cut();
    const cutUntil = Date.now() + 8000;
    const probe = async (): Promise<Probe> => {
      const started = Date.now();
      const response = await fetch(`${rig.apiUrl}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${prober.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channelType: 'email', to: 'probe@example.com', subject, text: 'given up on' }),
        signal: AbortSignal.timeout(20_000),
      });
      await response.text();
      return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: Date.now() - started };
    };
    while (Date.now() < cutUntil) {
      probes.push(await probe());
      await sleep(500);
    }
    rig.redisProxy!.restore();
    // all good once Redis is back: a probe goes through, the rest of the load is accepted
    await waitUntil(
      async () => (await probe()).status === 202,
      30_000,
      () => 'a send after Redis came back',
    );
    await reached(1);
    created = await rig.deps.db.message.count({ where: { orgId: prober.orgId, subject } });
  });
  const refused = probes.filter((p) => p.status === 503);
  expect(refused.length).toBeGreaterThan(3);
  for (const probe of refused) {
    expect(probe.retryAfter).toMatch(/^\d+$/);
    expect(probe.ms).toBeLessThan(4000);
  }
  // a probe answered 202 only if it slipped in before the connection noticed the cut; each 503 created nothing
  // (plus the one sent after Redis came back)
  expect(created).toBe(probes.filter((p) => p.status === 202).length + 1);
});
