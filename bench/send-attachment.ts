// The `message.send` with a 1 MiB attachment phase of `npm run bench` on its own: npm run bench:send-attachment.
// Prints and writes bench/results/send-attachment.json.
import './env.ts'; // first: .env fills the environment before anything reads it
import { createOrganization } from '@tidings/core';
import { runPhaseScript, startApi, stopProcess } from './harness.ts';
import { ATTACHMENT_CONNECTIONS, measureSendWithAttachment } from './phases/send-attachment.ts';

runPhaseScript('send-attachment', { RATE_LIMIT_PER_MINUTE: '100000000' }, async (bench) => {
  const { apiKey } = await createOrganization(bench.deps, { name: 'Bench', mode: 'test' });
  const api = await startApi(bench);
  const result = await measureSendWithAttachment(bench, api, apiKey.key);
  await stopProcess(api.child);
  const { requestsPerSecond, p50, p99, peakRssMiB, errors, statusCodes } = result;
  return { sendWithAttachment: { connections: ATTACHMENT_CONNECTIONS, requestsPerSecond, p50, p99, apiPeakRssMiB: peakRssMiB, errors, statusCodes } };
});
