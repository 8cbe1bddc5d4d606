// `npm test`: every workspace's lint, typecheck, architecture rules and jest suite through turbo, two tasks at a time
// (each suite has its own database, see packages/testing/src/test-database.ts), then the slowest test files of the
// run across all suites, from what scripts/test-times-reporter.js wrote. Arguments go on to turbo (`--concurrency=4`).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { readRun, slowestLines, timesRoot } = require('./test-times-reporter.js');

const root = path.join(__dirname, '..');
const SLOWEST = 15;

// this run's own directory for the reporter: a jest run started by hand, or another run, at the same time writes
// elsewhere; the directories of runs that were interrupted go after a day
const timesDir = path.join(timesRoot, `run-${Date.now()}-${process.pid}`);
for (const name of fs.existsSync(timesRoot) ? fs.readdirSync(timesRoot) : []) {
  const startedAt = Number(/^run-(\d+)-/.exec(name)?.[1]);
  if (startedAt < Date.now() - 24 * 3_600_000) fs.rmSync(path.join(timesRoot, name), { recursive: true, force: true });
}
// the CLI suite and the test databases' migration run bin/tidings.js: built once here if its sources changed, rather
// than each command through tsx (packages/cli/test/global-setup.ts does the same for a run of that suite alone)
if (require('../packages/cli/bin/build-state.js').isBuildStale()) {
  const build = spawnSync('npm', ['run', 'build', '-w', '@tidings/cli'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const tasks = ['lint', 'typecheck', 'test:architecture', 'test'];
const args = process.argv.slice(2);
const given = (flag) => args.some((arg) => arg.startsWith(flag));
// --continue: a failing suite does not stop the one running beside it halfway, so one run shows every failure
const defaults = [...(given('--concurrency') ? [] : ['--concurrency=2']), ...(given('--continue') ? [] : ['--continue'])];
const turbo = spawnSync(path.join(root, 'node_modules/.bin/turbo'), ['run', ...tasks, ...defaults, ...args], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TEST_TIMES_DIR: timesDir },
});
const lines = slowestLines(readRun(timesDir), SLOWEST);
if (lines.length > 0) console.log(`\n${lines.join('\n')}`);
fs.rmSync(timesDir, { recursive: true, force: true });
process.exit(turbo.status ?? 1);
