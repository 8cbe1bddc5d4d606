import { readFileSync } from 'node:fs';
import path from 'node:path';

// One `.env` for every local command: `npm start` and the CLI read it (their own tests), and so does each benchmark,
// through bench/env.ts imported before anything else reads the environment.
const root = path.resolve(__dirname, '../..');
const scriptsOf = (dir: string) => Object.values((JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

/** The bench entry files the npm scripts run (`tsx bench/x.ts`, or `tsx x.ts` inside bench/). */
const benchEntries = [
  ...scriptsOf('.').flatMap((script) => [...script.matchAll(/\btsx (bench\/[\w/-]+\.ts)/g)].map((match) => match[1])),
  ...scriptsOf('bench').flatMap((script) => [...script.matchAll(/\btsx ([\w/-]+\.ts)/g)].map((match) => `bench/${match[1]}`)),
];

it('finds the benchmark entries the npm scripts run', () => {
  expect(benchEntries).toEqual(expect.arrayContaining(['bench/run.ts', 'bench/send-sandbox.ts', 'bench/cpu-cost.ts']));
});

it.each(benchEntries)('%s reads .env first: its first import is ./env.ts', (entry) => {
  const firstImport = /^import\s.*$/m.exec(readFileSync(path.join(root, entry), 'utf8'))?.[0];
  expect(firstImport).toMatch(/^import '\.\/env\.ts';/);
});
