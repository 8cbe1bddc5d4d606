// The SMTP submission phase of `npm run bench` on its own: npm run bench:smtp (`npm run build` first to measure the
// built app's memory). Prints and writes bench/results/smtp.json.
import './env.ts'; // first: .env fills the environment before anything reads it
import { createOrganization } from '@tidings/core';
import { runPhaseScript, startApi, stopProcess } from './harness.ts';
import { measureSmtpSubmission } from './phases/smtp.ts';

runPhaseScript('smtp', { RATE_LIMIT_PER_MINUTE: '100000000' }, async (bench) => {
  const { apiKey } = await createOrganization(bench.deps, { name: 'Bench', mode: 'test' });
  const api = await startApi(bench);
  try {
    return { smtp: await measureSmtpSubmission(bench, api, apiKey.key) };
  } finally {
    await stopProcess(api.child);
  }
});
