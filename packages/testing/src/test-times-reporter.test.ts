// The reporter behind the slowest files `npm test` prints (scripts/test-times-reporter.js): each jest run writes into
// its own `npm test` run's directory, so another jest run at the same time, of the same suite or another, never
// changes the count. Each "jest run" here is a process of its own, as jest's are.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const reporterPath = path.resolve(__dirname, '../../../scripts/test-times-reporter.js');
type Suite = { workspace: string; files: { file: string; seconds: number; tests: number; failed: boolean }[] };
const { readRun, slowestLines } = require(reporterPath) as { readRun(dir: string): Suite[]; slowestLines(suites: Suite[], limit: number): string[] };
const repoRoot = path.resolve(__dirname, '../../..');

/** A jest run of `workspace` that ran `files` (name, seconds, passing tests), reported by a process of its own. */
function jestRun(workspace: string, files: [string, number, number][], env: Record<string, string | undefined>) {
  const results = {
    testResults: files.map(([name, seconds, tests]) => ({
      testFilePath: path.join(repoRoot, workspace, 'test', name),
      perfStats: { start: 1_000, end: 1_000 + seconds * 1000 },
      numPassingTests: tests,
      numFailingTests: 0,
      numPendingTests: 0,
      numTodoTests: 0,
    })),
  };
  const script = `const R = require(${JSON.stringify(reporterPath)}); new R({ rootDir: ${JSON.stringify(path.join(repoRoot, workspace))} }).onRunComplete([], ${JSON.stringify(results)});`;
  execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH, ...env } });
}

describe('the test-times reporter', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'test-times-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("counts what one run's jest processes wrote, whatever other jest runs wrote meanwhile", () => {
    const run = path.join(scratch, 'run-a');
    const other = path.join(scratch, 'run-b');
    jestRun(
      'apps/api',
      [
        ['a.test.ts', 3, 10],
        ['b.test.ts', 1, 5],
      ],
      { TEST_TIMES_DIR: run },
    );
    jestRun('apps/send-worker', [['c.test.ts', 7, 2]], { TEST_TIMES_DIR: run });
    // meanwhile: one file of the same suite run by hand, and another run's suite
    jestRun('apps/api', [['a.test.ts', 9, 10]], { TEST_TIMES_DIR: other });
    jestRun('tests/faults', [['d.test.ts', 99, 4]], { TEST_TIMES_DIR: other });

    expect(slowestLines(readRun(run), 2)).toEqual([
      '17 tests in 3 files of 2 suites, 11 s in test files; the 2 slowest files:',
      '    7.0 s     2 tests  apps/send-worker/test/c.test.ts',
      '    3.0 s    10 tests  apps/api/test/a.test.ts',
    ]);
  });

  it('keeps both of two jest runs of one suite within one run', () => {
    const run = path.join(scratch, 'run-c');
    jestRun('apps/api', [['a.test.ts', 3, 10]], { TEST_TIMES_DIR: run });
    jestRun('apps/api', [['b.test.ts', 1, 5]], { TEST_TIMES_DIR: run });
    expect(
      readRun(run)
        .flatMap((suite) => suite.files.map((file) => file.file))
        .sort(),
    ).toEqual(['apps/api/test/a.test.ts', 'apps/api/test/b.test.ts']);
    expect(slowestLines(readRun(path.join(scratch, 'never-written')), 15)).toEqual([]);
  });
});
