// The API's memory under a flood of tracking requests from one address (issue 46, item 13: 21,250 requests in 20 s
// took an API to 832 MB): npm run bench:tracking-flood -- [seconds=20]. GET /c/ and /o/ with tokens of unknown
// messages from 50 connections at the default TRACKING_RATE_LIMIT (600 a minute: the rest are answered 429), then
// 30 s idle, twice. Prints and writes bench/results/tracking-flood.json: RSS at start, and each round's peak and RSS
// after the idle time.
import './env.ts'; // first: .env fills the environment before anything reads it
import { readFileSync } from 'node:fs';
import { load, progress, runPhaseScript, sampleRss, startApi, stopProcess } from './harness.ts';

const seconds = Number(process.argv[2] ?? 20);
const IDLE_MS = 30_000;

const rssMiB = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

runPhaseScript('tracking-flood', {}, async (bench) => {
  const api = await startApi(bench);
  try {
    const pid = api.child.pid!;
    const startMiB = rssMiB(pid);
    const paths = Array.from({ length: 1000 }, (_, i) => (i % 2 ? `/c/forged${i}.x.y` : `/o/forged${i}.gif`));
    // twice: a process that keeps what it took the first time and takes no more the second has a high-water mark,
    // not a leak
    const rounds: Record<string, Record<string, number>> = {};
    for (const round of [1, 2]) {
      progress(`round ${round}: GET /c/ and /o/ from one address, 50 connections, ${seconds} s, then ${IDLE_MS / 1000} s idle`);
      const peak = sampleRss(pid);
      const flood = await load({ url: `${api.url}/c/x`, method: 'GET', headers: {}, connections: 50, seconds, warmupSeconds: 0, paths });
      const peakMiB = peak.stop();
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const requests = Object.values(flood.statusCodes).reduce((a, b) => a + b, 0);
      rounds[`round ${round}`] = { requests, answered404: flood.statusCodes['404'] ?? 0, answered429: flood.statusCodes['429'] ?? 0, peakMiB, afterIdleMiB: rssMiB(pid) };
    }
    return { start: { rssMiB: startMiB }, ...rounds };
  } finally {
    await stopProcess(api.child);
  }
});
