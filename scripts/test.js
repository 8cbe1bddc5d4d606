// `npm test`: every workspace's lint, typecheck, architecture rules and jest suite through turbo, in two lanes at once
// (each suite has its own database, see packages/testing/src/test-database.ts), then the slowest test files of the
// run across all suites, from what scripts/test-times-reporter.js wrote. Arguments go on to one turbo run
// (`--filter=@tidings/api`, `--concurrency=4`).
const { spawn, spawnSync } = require('node:child_process');
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

/**
 * Two lanes of about equal length, one task at a time each, instead of one turbo run two at a time: turbo starts
 * ready tasks in an order of its own, and when the two longest suites (dashboard and api, about 190 s each) started
 * last, one ran alone for minutes. This lane holds the suites named here (about 400 s of jest in a run of 2026-12-07
 * evening); the other lane every other task (lint, typecheck and the architecture rules included, about as long: with
 * the SMTP and providers suites here too, this lane ended a minute after the other). A package not
 * named here goes to the other lane, so a new suite is never left out.
 */
const LANE = ['@tidings/dashboard', '@tidings/send-worker', '@tidings/core', '@tidings/testing', '@tidings/webhooks', '@tidings/db', '@tidings/queue'];

/** Runs turbo with `turboArgs` in the background; resolves with its exit status. */
function runTurbo(turboArgs) {
  // --continue: a failing suite does not stop the next one, so one run shows every failure
  const child = spawn(path.join(root, 'node_modules/.bin/turbo'), ['run', ...turboArgs, '--continue'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TEST_TIMES_DIR: timesDir },
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

async function main() {
  // arguments (`--filter=@tidings/api`, `--concurrency=4`) make one turbo run of them, as before
  const statuses = await Promise.all(
    args.length > 0
      ? [runTurbo([...tasks, ...(args.some((arg) => arg.startsWith('--concurrency')) ? [] : ['--concurrency=2']), ...args])]
      : [runTurbo(['test', '--concurrency=1', ...LANE.map((name) => `--filter=${name}`)]), runTurbo([...tasks, '--concurrency=1', ...LANE.map((name) => `--filter=!${name}`)])],
  );
  const lines = slowestLines(readRun(timesDir), SLOWEST);
  if (lines.length > 0) console.log(`\n${lines.join('\n')}`);
  fs.rmSync(timesDir, { recursive: true, force: true });
  process.exit(statuses.find((status) => status !== 0) ?? 0);
}

void main();
