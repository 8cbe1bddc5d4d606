// A jest reporter: writes how long each test file of this jest run took, so that `npm test` can print the slowest
// files across every workspace's run at its end (scripts/test.js). Each `npm test` has a directory of its own,
// `.test-times/<run>/` (git-ignored), given as TEST_TIMES_DIR, and each jest process writes its own file there: a
// single `npx jest` or another suite running at the same time writes elsewhere, and never changes what a run counts.
const fs = require('node:fs');
const path = require('node:path');

const repoRoot = path.join(__dirname, '..');
const timesRoot = path.join(repoRoot, '.test-times');

/** Where this process's jest run writes: the `npm test` run's directory, else `.test-times/single/` (read by nobody). */
function runDirectory(env = process.env) {
  return env.TEST_TIMES_DIR || path.join(timesRoot, 'single');
}

class TestTimesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults.map((file) => ({
      file: path.relative(repoRoot, file.testFilePath),
      seconds: (file.perfStats.end - file.perfStats.start) / 1000,
      tests: file.numPassingTests + file.numFailingTests + file.numPendingTests + file.numTodoTests,
      failed: file.numFailingTests > 0 || Boolean(file.testExecError),
    }));
    const workspace = path.relative(repoRoot, this.rootDir).replaceAll(path.sep, '-') || 'root';
    const dir = runDirectory();
    fs.mkdirSync(dir, { recursive: true });
    // within an `npm test` run one file per jest process, so two jest runs of one workspace add up, not overwrite;
    // outside one, the workspace's last run
    const name = process.env.TEST_TIMES_DIR ? `${workspace}.${process.pid}.json` : `${workspace}.json`;
    fs.writeFileSync(path.join(dir, name), `${JSON.stringify({ workspace, files })}\n`);
  }
}

/** What the jest runs of one `npm test` wrote into its directory `dir`: one entry per jest run. */
function readRun(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')));
}

/** The lines `npm test` prints at its end: the test count of the run and its `limit` slowest files. */
function slowestLines(suites, limit) {
  const files = suites.flatMap((suite) => suite.files);
  if (files.length === 0) return [];
  const tests = files.reduce((sum, file) => sum + file.tests, 0);
  const seconds = files.reduce((sum, file) => sum + file.seconds, 0);
  return [
    `${tests} tests in ${files.length} files of ${suites.length} suites, ${seconds.toFixed(0)} s in test files; the ${limit} slowest files:`,
    ...[...files]
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, limit)
      .map((file) => `${file.seconds.toFixed(1).padStart(7)} s  ${String(file.tests).padStart(4)} tests  ${file.file}${file.failed ? '  (failed)' : ''}`),
  ];
}

module.exports = TestTimesReporter;
module.exports.timesRoot = timesRoot;
module.exports.readRun = readRun;
module.exports.slowestLines = slowestLines;
