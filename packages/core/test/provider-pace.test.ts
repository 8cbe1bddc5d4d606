import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createTestDeps, makeOrganization, startFakeResend, startSmtpServer, waitFor, type FakeResend } from '@tidings/testing';
import { attemptToSend, correctProviderPace, getMessage, newId, paceKey, sendMessages, takeProviderSlot, type PaceAccount } from '../src/index.ts';

// The limiter is shared through Redis; a provider's 429 is a deferral: no attempt, no failover, the message waits.
let resend: FakeResend;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let deps: ReturnType<typeof createTestDeps>;

beforeAll(async () => {
  [resend, smtp] = await Promise.all([startFakeResend(), startSmtpServer()]);
  deps = createTestDeps({
    EMAIL_PROVIDERS: 'resend,smtp',
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: resend.url,
    RESEND_RATE_PER_SECOND: '10000',
    SMTP_URL: smtp.url,
    SEND_MAX_ATTEMPTS: '2',
  });
});
afterAll(async () => {
  await deps.close();
  await Promise.all([resend.close(), smtp.close()]);
});

const account = (name: string, ratePerSecond: number): PaceAccount => ({ name: `${name}-${randomUUID()}`, provider: name, ratePerSecond, reason: 'provider_rate_limit' });

describe('the shared limiter', () => {
  it('lets bulk go ahead one slot less than a transactional send: a single send finds a slot while bulk waits', async () => {
    const a = account('resend', 5); // 5 a second: bulk may go 3 slots ahead, transactional 4
    let granted = 0;
    while ((await takeProviderSlot(deps, a, 'bulk', { reserve: false })).kind === 'now' && granted < 20) granted++;
    // 4 at once (a slow take may find one more slot come round): never the 5 a second a single send may still have
    expect(granted).toBeGreaterThanOrEqual(4);
    expect(granted).toBeLessThanOrEqual(5);
    // the transactional lane is not held behind bulk
    expect(await takeProviderSlot(deps, a, 'transactional', { reserve: true })).toEqual({ kind: 'now' });
    // and bulk now waits for it too: more than one interval (200 ms at 95%)
    const after = await takeProviderSlot(deps, a, 'bulk', { reserve: false });
    expect(after.kind).toBe('wait');
    expect((after as { waitMs: number }).waitMs).toBeGreaterThan(150);
  });

  it('books later slots in order for transactional sends that must wait', async () => {
    const a = account('resend', 10); // 105 ms apart, 9 slots ahead at most
    // asked at once (taken in order by Redis): one after the other, on a loaded machine, the 14 round trips outlasted
    // an interval and a slot came round, so the 11th was granted now instead of booked
    const slots = await Promise.all(Array.from({ length: 14 }, () => takeProviderSlot(deps, a, 'transactional', { reserve: true })));
    expect(slots.slice(0, 10).every((s) => s.kind === 'now')).toBe(true);
    const booked = slots.slice(10).map((s) => (s.kind === 'reserved' ? s.at.getTime() : Number.NaN));
    expect(booked.every((at) => Number.isFinite(at))).toBe(true);
    // each booked slot one interval after the one before (Redis clock vs ours: a few ms either way)
    for (let i = 1; i < booked.length; i++) expect(booked[i]! - booked[i - 1]!).toBeGreaterThanOrEqual(90);
  });

  it("gathers a process's concurrent takes: one script call per account, each taker its own slot in turn", async () => {
    const a = account('resend', 10);
    const b = account('resend', 10);
    // Redis's own record of the commands it ran (MONITOR), the script calls on these two accounts' keys counted
    const connection = new Redis(deps.config.redisUrl);
    const monitor = await connection.monitor();
    const marker = `marker-${randomUUID()}`;
    const calls: string[] = [];
    let hasSeenMarker = false;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.includes(marker)) hasSeenMarker = true;
      // MONITOR shows a script's own commands too: only the calls of scripts count
      else if (/^eval/i.test(args[0]!) && args.some((arg) => arg.includes(a.name) || arg.includes(b.name))) calls.push(args[0]!.toLowerCase());
    });
    try {
      const take = (x: PaceAccount) => deps.batchers.slotTakes(x, { lane: 'transactional', reserve: true });
      const [ofA, ofB] = await Promise.all([Promise.all(Array.from({ length: 14 }, () => take(a))), Promise.all(Array.from({ length: 3 }, () => take(b)))]);
      // commands are run in order: once the marker is seen, every script call before it was too
      await deps.rateLimits.connection.echo(marker);
      await waitFor(() => hasSeenMarker, 5000, 'the marker in MONITOR');
      expect(calls).toEqual(['evalsha', 'evalsha']);
      // as taken one by one: 10 now (the transactional depth of 10 a second), then booked one interval apart
      expect(ofA.slice(0, 10).every((s) => s.kind === 'now')).toBe(true);
      const booked = ofA.slice(10).map((s) => (s.kind === 'reserved' ? s.at.getTime() : Number.NaN));
      for (let i = 1; i < booked.length; i++) expect(booked[i]! - booked[i - 1]!).toBeGreaterThanOrEqual(100);
      expect(ofB).toEqual([{ kind: 'now' }, { kind: 'now' }, { kind: 'now' }]);
      // each taker counted once in the account's use (pace-status.ts reads c)
      expect(await deps.rateLimits.connection.hget(paceKey(deps.config.redisPrefix, a), 'c')).toBe('14');
    } finally {
      monitor.disconnect();
      connection.disconnect();
    }
  });

  it("holds every taker back for the provider's retry-after", async () => {
    const a = account('resend', 100);
    await correctProviderPace(deps, a, undefined, { isRateLimited: true, retryAfterMs: 1000 });
    const slot = await takeProviderSlot(deps, a, 'bulk', { reserve: false });
    expect(slot.kind).toBe('wait');
    expect((slot as { waitMs: number }).waitMs).toBeGreaterThan(900);
  });

  it("slows to the provider's own lower limit (ratelimit-limit)", async () => {
    const a = account('resend', 100);
    await correctProviderPace(deps, a, { limit: 2 }, { isRateLimited: false });
    expect(await takeProviderSlot(deps, a, 'bulk', { reserve: false })).toEqual({ kind: 'now' });
    const slot = await takeProviderSlot(deps, a, 'bulk', { reserve: false });
    expect((slot as { waitMs: number }).waitMs).toBeGreaterThan(400); // 2 per second, not 100
  });
});

describe("a provider's 429", () => {
  it('defers the message: no attempt spent, no failover, shown by message.get, then sent', async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'live' });
    await deps.db.emailDomain.create({
      data: { id: newId('dom'), orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@acme.test' },
    });
    const { data } = await sendMessages({ deps, orgId, mode: 'live' }, [{ channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' }]);
    const id = data[0]!.id;
    resend.failNext(
      3,
      {
        kind: 'status',
        status: 429,
        body: { statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests' },
        headers: { 'retry-after': '1', 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' },
      },
      '/emails',
    );
    const bookedSlot = async () => (await deps.db.message.findUniqueOrThrow({ where: { id } })).deferredUntil!.getTime();
    for (let i = 0; i < 3; i++) {
      const before = Date.now();
      const attempt = await attemptToSend(deps, id, { lane: 'transactional' });
      expect(attempt).toMatchObject({ kind: 'deferred', reason: 'provider_rate_limit' });
      expect((attempt as { at: Date }).at.getTime()).toBeGreaterThanOrEqual(before + 900); // retry-after: 1
      const shown = await getMessage(deps, orgId, id, 'live');
      expect(shown).toMatchObject({ status: 'sending', attempts: 0, deferredReason: 'provider_rate_limit', error: null });
      expect(shown.deferredUntil).toBe((attempt as { at: Date }).at.toISOString());
      // a run before its slot waits again without calling the provider
      expect(await attemptToSend(deps, id, { lane: 'transactional' })).toMatchObject({ kind: 'deferred', at: (attempt as { at: Date }).at });
      const slot = await bookedSlot();
      await waitFor(async () => Date.now() >= slot, 10_000, 'the booked slot');
    }
    // three 429s with SEND_MAX_ATTEMPTS 2: not failed, and SMTP (next in line) was never asked
    expect(resend.requests.filter((r) => r.path === '/emails')).toHaveLength(3);
    expect(smtp.received).toHaveLength(0);
    expect(deps.providers.circuit.state('resend')).toBe('closed');
    expect(await attemptToSend(deps, id, { lane: 'transactional' })).toEqual({ kind: 'sent', provider: 'resend' });
    expect(await getMessage(deps, orgId, id, 'live')).toMatchObject({ status: 'sent', attempts: 1, deferredUntil: null, deferredReason: null });
  });
});

describe("the provider's ratelimit-remaining and ratelimit-reset", () => {
  // our limit is the provider's (3 a second), but another client of the same Resend account spends it too
  let shared: ReturnType<typeof createTestDeps>;
  beforeAll(() => {
    shared = createTestDeps({ EMAIL_PROVIDERS: 'resend', RESEND_API_KEY: 're_test_key', RESEND_BASE_URL: resend.url, RESEND_RATE_PER_SECOND: '3' });
    resend.state.limit.ratePerSecond = 3;
  });
  afterAll(async () => {
    resend.state.limit.ratePerSecond = 0;
    await shared.close();
  });

  it('holds every sender until the reset once an answer says none remain: the next send waits instead of meeting a 429', async () => {
    const { orgId } = await makeOrganization(shared, { mode: 'live' });
    await shared.db.emailDomain.create({
      data: { id: newId('dom'), orgId, name: 'shared.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@shared.test' },
    });
    const { data } = await sendMessages({ deps: shared, orgId, mode: 'live' }, [
      { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' },
      { channelType: 'email', to: 'bob@example.com', subject: 'Hi', text: 'Hello' },
    ]);
    // the other client spends all but one request of this second just before our call, whatever the machine's speed
    const limit = resend.state.limit;
    const take = limit.take.bind(limit);
    limit.take = (key?: string) => {
      limit.take = take;
      while (take(key).remaining > 1);
      return take(key);
    };
    const refusedBefore = resend.state.counts.rateLimited;
    const callsBefore = resend.requests.filter((r) => r.path === '/emails').length;
    expect(await attemptToSend(shared, data[0]!.id, { lane: 'transactional' })).toEqual({ kind: 'sent', provider: 'resend' }); // answered ratelimit-remaining: 0, ratelimit-reset: 1
    const before = Date.now();
    const second = await attemptToSend(shared, data[1]!.id, { lane: 'transactional' });
    expect(second).toMatchObject({ kind: 'deferred', reason: 'provider_rate_limit' });
    expect((second as { at: Date }).at.getTime()).toBeGreaterThanOrEqual(before + 800);
    // it waited without calling (and so met no 429 for the shared account)
    expect(resend.requests.filter((r) => r.path === '/emails')).toHaveLength(callsBefore + 1);
    expect(resend.state.counts.rateLimited).toBe(refusedBefore);
    const slot = (await shared.db.message.findUniqueOrThrow({ where: { id: data[1]!.id } })).deferredUntil!.getTime();
    await waitFor(async () => Date.now() >= slot, 10_000, 'the booked slot');
    expect(await attemptToSend(shared, data[1]!.id, { lane: 'transactional' })).toEqual({ kind: 'sent', provider: 'resend' });
    expect(resend.state.counts.rateLimited).toBe(refusedBefore);
  });
});
