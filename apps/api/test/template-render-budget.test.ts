import { renderHardStopMs } from '@tidings/core';
import { watchEventLoopHolds } from '@tidings/testing';
import { setupApi } from './setup.ts';

const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000' });
afterAll(() => t.close());

// 1,800 x 1,800 empty iterations: seconds of CPU for each render if nothing stops it.
const HOSTILE = 'Hi {% for i in (1..1800) %}{% for j in (1..1800) %}{% endfor %}{% endfor %}';
const sms = (templateId: string) => ({ channelType: 'sms', to: '+14155550123', templateId });

type Probe = () => Promise<{ status: number }>;

/** Calls each probe in turn, every 10 ms, until `done` settles; the time of each call in ms, by probe. */
async function latenciesWhile(done: Promise<unknown>, probes: Record<string, Probe>): Promise<Record<string, number[]>> {
  let settled = false;
  void done.finally(() => (settled = true));
  const latencies: Record<string, number[]> = Object.fromEntries(Object.keys(probes).map((name) => [name, []]));
  while (!settled) {
    for (const [name, probe] of Object.entries(probes)) {
      const started = performance.now();
      const res = await probe();
      latencies[name]!.push(performance.now() - started);
      expect(res.status).toBe(200);
    }
    // other clients' traffic, not a loop that takes a core from the render thread: the budget counts the thread's own
    // CPU time, so a render thread starved by this process's own loop would take that much longer to be stopped
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return latencies;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('template rendering has a budget per request, spent off the event loop', () => {
  it('a batch of hostile renders is a 400 naming the template, and other requests are answered within 50 ms (or idle speed) meanwhile', async () => {
    const attacker = await t.org({ mode: 'test' });
    const bystander = await t.org({ mode: 'test' });
    await bystander.api.post('/v1/messages', { channelType: 'sms', to: '+14155550124', body: 'hello' });
    const template = (await attacker.api.post('/v1/templates', { name: 'loops', channelType: 'sms', body: HOSTILE })).body;
    // the render pool starts its threads on first use: warm it, as a running API would be
    expect((await attacker.api.post('/v1/templates', { name: 'warm', channelType: 'sms', body: 'x' })).status).toBe(201);
    const warm = (await attacker.api.get('/v1/templates?name=warm')).body.data[0];
    const previews = await Promise.all([1, 2].map(() => attacker.api.post(`/v1/templates/${warm.id}/preview`, { variables: {} })));
    expect(previews.map((preview) => preview.status)).toEqual([200, 200]);

    const probes: Record<string, Probe> = { health: () => t.anonymous.get('/healthz'), otherTenant: () => bystander.api.get('/v1/messages') };
    for (const probe of Object.values(probes)) await probe(); // the first call compiles this client's response checks: not what is measured
    const idle = await latenciesWhile(new Promise((resolve) => setTimeout(resolve, 500)), probes); // the same over a fixed 500 ms window with nothing rendering: a baseline, not a wait

    const eventLoop = watchEventLoopHolds();
    const started = performance.now();
    const cpuBefore = process.cpuUsage(); // the whole process: the API and its render threads run in this test's process
    const hostile = attacker.api.post('/v1/messages/batch', { messages: Array.from({ length: 8 }, () => sms(template.id)) });
    const latencies = await latenciesWhile(hostile, probes);
    const res = await hostile;
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const figures = { elapsedMs, cpuMs, eventLoopHeldMaxMs: eventLoop.stop(), ...latencies };

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(template.id) });
    expect(res.body.message).toContain('250 ms');
    // one budget for the whole batch, not one per item or part: 8 budgets would be 2 s of CPU time in the render
    // threads alone. Counted in CPU time, what the budget is: the wall-clock time adds each thread's wait for a core
    // and moved from 1 s to 4.4 s with the machine's load. The wall clock is held to the render's hard stop.
    expect(cpuMs).toBeLessThan(8 * 250);
    expect(elapsedMs).toBeLessThan(renderHardStopMs(250));
    // Another tenant is answered meanwhile: /healthz (no I/O) and another organization's message.list (a database
    // round trip) within 50 ms, medians, the latter or (on a machine so loaded that it takes longer with nothing
    // rendering) near its idle speed; and the event loop was never held for a render budget of its thread's CPU time (a
    // render on it would hold it at least that long; its delay in wall time also counts the waits for a core, 250 ms
    // and more in CI at load 8 with nothing on the loop).
    expect(latencies.health!.length).toBeGreaterThanOrEqual(3);
    // (the database round trip shares the CPU with the render thread, hence some slack over its idle speed)
    const verdict = {
      healthAnsweredInTime: median(latencies.health!) < 50,
      otherTenantAnsweredInTime: median(latencies.otherTenant!) < Math.max(50, 3 * median(idle.otherTenant!)),
      eventLoopNeverHeldForABudget: figures.eventLoopHeldMaxMs < 250,
    };
    const allTrue = { healthAnsweredInTime: true, otherTenantAnsweredInTime: true, eventLoopNeverHeldForABudget: true };
    expect({ verdict, figures, idle }).toEqual({ verdict: allTrue, figures, idle });
    expect(await t.deps.db.message.count({ where: { orgId: attacker.orgId } })).toBe(0);
  });

  it('message.send and template.preview with a hostile template are a 400 naming it', async () => {
    const { api, orgId } = await t.org({ mode: 'test' });
    const template = (await api.post('/v1/templates', { name: 'loops', channelType: 'sms', body: HOSTILE })).body;
    for (const res of [await api.post('/v1/messages', sms(template.id)), await api.post(`/v1/templates/${template.id}/preview`, { variables: {} })]) {
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^templateId: rendering the template ${template.id} takes more than the 250 ms of CPU time`));
    }
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('ordinary templates still render, in a batch with literal messages', async () => {
    const { api } = await t.org({ mode: 'test' });
    const template = (await api.post('/v1/templates', { name: 'otp', channelType: 'sms', body: 'Code {{ code }}{% for i in (1..3) %}.{% endfor %}' })).body;
    const res = await api.post('/v1/messages/batch', {
      messages: [
        { ...sms(template.id), variables: { code: '1' } },
        { channelType: 'sms', to: '+14155550123', body: 'literal' },
        { ...sms(template.id), variables: {} },
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body.data.map((m: { body: string } | null) => m?.body ?? null)).toEqual(['Code 1...', 'literal', null]);
    expect(res.body.errors).toEqual([{ index: 2, code: 'BAD_REQUEST', message: "variables.code: missing; the template's body uses it" }]);
  });
});
