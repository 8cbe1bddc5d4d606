// The "drain against a Resend at 5 requests per second" phase of `npm run bench` on its own:
// npm run bench:paced-drain -- [messages=10000]. Prints and writes bench/results/paced-drain.json.
import './env.ts'; // first: .env fills the environment before anything reads it
import { runPhaseScript } from './harness.ts';
import { measurePacedDrain } from './phases/paced-drain.ts';

const messages = Number(process.argv[2] ?? process.env.BENCH_PACED_MESSAGES ?? 10_000);

runPhaseScript('paced-drain', {}, async (bench) => ({ pacedDrain: await measurePacedDrain(bench, messages) }));
