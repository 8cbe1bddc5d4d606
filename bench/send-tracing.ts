// The tracing phase of `npm run bench` on its own: message.send on an untraced API and on an API exporting every
// span to a loopback collector, loaded in turns. npm run bench:send-tracing; writes bench/results/send-tracing.json.
import './env.ts'; // first: .env fills the environment before anything reads it
import { createOrganization } from '@tidings/core';
import { runPhaseScript, startApi, stopProcess } from './harness.ts';
import { measureTracedSend } from './phases/send-traced.ts';

runPhaseScript('send-tracing', { RATE_LIMIT_PER_MINUTE: '100000000' }, async (bench) => {
  const { apiKey } = await createOrganization(bench.deps, { name: 'Bench', mode: 'test' });
  const api = await startApi(bench);
  try {
    const { off, on, ratio } = await measureTracedSend(bench, api, apiKey.key);
    const row = (r: { requestsPerSecond: number; p50: number; p99: number; errors: number }) => ({
      requestsPerSecond: r.requestsPerSecond,
      p50: r.p50,
      p99: r.p99,
      errors: r.errors,
    });
    return { tracingOff: row(off), tracingOn: { ...row(on), ratioToOff: ratio } };
  } finally {
    await stopProcess(api.child);
  }
});
