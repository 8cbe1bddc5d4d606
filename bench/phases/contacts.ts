// contact.bulkCreate of 1,000 contacts through the real API: one warm-up, then the median of BENCH_CONTACT_RUNS.
import { progress, type Api, type Bench } from '../harness.ts';

/** 1,000 distinct contacts with attributes; `run` (0..799) keeps one run's addresses and numbers apart from another's. */
export function thousandContacts(run: number) {
  return Array.from({ length: 1000 }, (_, i) => ({
    email: `person${i}-${run}@bench.example`,
    phone: `+1415${200 + run}${String(i).padStart(4, '0')}`, // a valid exchange (2xx..9xx) per run
    firstName: `First${i}`,
    lastName: `Last${i}`,
    attributes: { plan: i % 2 ? 'pro' : 'free', seats: i },
    smsSubscribed: i % 10 !== 0,
  }));
}

export async function measureContacts(_bench: Bench, api: Api, apiKey: string, runs: number) {
  progress(`api: POST /v1/contacts/bulk of 1,000, ${runs} runs after a warm-up`);
  const timings: number[] = [];
  for (let run = 0; run <= runs; run += 1) {
    const body = JSON.stringify({ contacts: thousandContacts(run) });
    const started = performance.now();
    const res = await fetch(`${api.url}/v1/contacts/bulk`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
    const answer = (await res.json()) as { created?: unknown[] };
    const ms = performance.now() - started;
    if (res.status !== 200 || answer.created?.length !== 1000) throw new Error(`contacts: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    if (run > 0) timings.push(Math.round(ms)); // the first run warms up the JIT and the pool
  }
  timings.sort((a, b) => a - b);
  return { bulkCreateMs: timings[Math.floor(timings.length / 2)]!, minMs: timings[0]!, maxMs: timings.at(-1)!, runs };
}
