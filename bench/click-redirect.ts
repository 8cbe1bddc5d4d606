// The click redirect alone: npm run bench:click-redirect -- [messages=5000]
// Seeds `messages` messages, loads message.list pages and then GET /c/{token} on the same API, and prints and writes
// bench/results/click-redirect.json (requests/s of each and their ratio, goal >= 1).
import './env.ts'; // first: .env fills the environment before anything reads it
import { createOrganization } from '@tidings/core';
import { load, runPhaseScript, startApi, stopProcess } from './harness.ts';
import { measureClickRedirect } from './phases/click-redirect.ts';
import { LIST_CONNECTIONS, seedMessages } from './phases/list.ts';

const messages = Number(process.argv[2] ?? process.env.BENCH_CLICK_MESSAGES ?? 5000);

// every click comes from one address: TRACKING_RATE_LIMIT (600 a minute by default) would answer the rest 429
runPhaseScript('click-redirect', { RATE_LIMIT_PER_MINUTE: '100000000', TRACKING_RATE_LIMIT: '100000000' }, async (bench) => {
  const { organization, apiKey } = await createOrganization(bench.deps, { name: 'Bench clicks', mode: 'test' });
  await seedMessages(bench, organization.id, messages);
  const api = await startApi(bench);
  try {
    const listPages = await load({
      url: `${api.url}/v1/messages?limit=100`,
      method: 'GET',
      headers: { authorization: `Bearer ${apiKey.key}` },
      connections: LIST_CONNECTIONS,
      seconds: bench.seconds,
    });
    const ids = Array.from({ length: messages }, (_, i) => `msg_list${String(i + 1).padStart(10, '0')}`);
    return { clickRedirect: await measureClickRedirect(bench, api, ids, listPages) };
  } finally {
    await stopProcess(api.child);
  }
});
