// The broadcast phase of `npm run bench` on its own: npm run bench:broadcast -- [contacts=100000]
// Prints and writes bench/results/broadcast.json.
import './env.ts'; // first: .env fills the environment before anything reads it
import { runPhaseScript } from './harness.ts';
import { measureBroadcast } from './phases/broadcast.ts';

const contacts = Number(process.argv[2] ?? process.env.BENCH_BROADCAST_CONTACTS ?? 100_000);

runPhaseScript('broadcast', {}, async (bench) => ({ broadcast: await measureBroadcast(bench, contacts) }));
