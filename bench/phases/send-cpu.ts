// The send phases' requests, and the tracing phase of `bench:cpu-cost`: message.send on an API with tracing off and one
// with it on, the CPU of each and the spans exported per send.
import { createOrganization } from '@tidings/core';
import { startOtlpReceiver, type OtlpReceiver } from '@tidings/testing';
import { cpuPartsOf } from '../process-usage.ts';
import { cpuSecondsOf, progress, startApi, stopProcess, type Bench } from '../harness.ts';
import { SEND_BODY } from './send.ts';

/** Runs `request` `total` times, `connections` at a time; throws on any answer but `status`. */
export async function repeat(total: number, connections: number, status: number, request: () => Promise<Response>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < total) {
        next += 1;
        const res = await request();
        if (res.status !== status) throw new Error(`${res.url}: ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
}

/** `total` message.send requests of the send phase's body, `connections` at a time, each answered 202. */
export const sendMessages = (url: string, apiKey: string, total: number, connections: number) =>
  repeat(total, connections, 202, () => fetch(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: SEND_BODY }));

/** Resolves once no span has arrived at `otlp` for longer than the SDK's default export delay (5 s). */
async function spansSettled(otlp: OtlpReceiver): Promise<number> {
  let seen = -1;
  while (seen !== otlp.spans.length) {
    seen = otlp.spans.length;
    await new Promise((resolve) => setTimeout(resolve, 5500));
  }
  return seen;
}

/**
 * message.send, 4 at a time, on two APIs at once, one with tracing off and one with it on, in alternating chunks of
 * 250 (so both see the same machine: on a shared machine, runs a minute apart differ more than tracing does): each
 * API's CPU per 1,000 sends, and the spans (by name) and OTLP bytes the traced one exports per send.
 */
export async function measureSendTracing(bench: Bench, count: number) {
  const { apiKey } = await createOrganization(bench.deps, { name: 'Bench', mode: 'test' });
  const otlp = await startOtlpReceiver();
  const [off, on] = await Promise.all([startApi(bench), startApi({ ...bench, env: { ...bench.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url } })]);
  try {
    const send = (url: string, total: number) => sendMessages(`${url}/v1/messages`, apiKey.key, total, 4);
    progress('warming up both APIs');
    await send(off.url, 1_000);
    await send(on.url, 1_000);
    const spansBefore = await spansSettled(otlp);
    const bodiesBefore = otlp.bodies.length;
    const cpuBefore = { off: cpuSecondsOf(off.child.pid!), on: cpuSecondsOf(on.child.pid!) };
    const partsBefore = { off: cpuPartsOf(off.child.pid!), on: cpuPartsOf(on.child.pid!) };
    progress(`${count} sends to each, alternating chunks of 250`);
    for (let sent = 0; sent < count; sent += 250) {
      await send(off.url, Math.min(250, count - sent));
      await send(on.url, Math.min(250, count - sent));
    }
    const spansAfter = await spansSettled(otlp);
    const per1000 = (pid: number, before: number) => Math.round(((cpuSecondsOf(pid) - before) / count) * 1000 * 1000) / 1000;
    // where each API's CPU went: its main thread (user, system) and its other threads (GC helpers, libuv's pool)
    const split = (pid: number, before: ReturnType<typeof cpuPartsOf>) =>
      Object.entries(cpuPartsOf(pid)).map(([part, s]) => [part, Math.round(((s - before[part as keyof typeof before]) / count) * 1000 * 1000) / 1000] as const);
    const parts = { off: split(off.child.pid!, partsBefore.off), on: split(on.child.pid!, partsBefore.on) };
    const cpu = { off: per1000(off.child.pid!, cpuBefore.off), on: per1000(on.child.pid!, cpuBefore.on) };
    const names = new Map<string, number>();
    for (const span of otlp.spans.slice(spansBefore, spansAfter)) names.set(span.name, (names.get(span.name) ?? 0) + 1);
    const perSend = (n: number) => Math.round((n / count) * 100) / 100;
    return {
      sends: count,
      apiCpuPer1000Off: cpu.off,
      apiCpuPer1000On: cpu.on,
      onToOff: Math.round((cpu.on / cpu.off) * 100) / 100,
      ...Object.fromEntries([...parts.off.map(([k, v]) => [`off ${k}`, v]), ...parts.on.map(([k, v]) => [`on ${k}`, v])]),
      spansPerSend: perSend(spansAfter - spansBefore),
      exportedBytesPerSend: Math.round(otlp.bodies.slice(bodiesBefore).reduce((n, b) => n + b.length, 0) / count),
      ...Object.fromEntries([...names].map(([name, n]) => [`spans: ${name}`, perSend(n)])),
    };
  } finally {
    await Promise.all([stopProcess(off.child), stopProcess(on.child)]);
    await otlp.close();
  }
}
