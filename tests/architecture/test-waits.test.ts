import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Tests wait for an outcome through the shared `waitFor` (packages/testing), never by sleeping a fixed time and hoping
// it happened meanwhile. A best-effort check on the text: an awaited setTimeout or sleep in a test file is allowed only
// where it paces or lasts on purpose (an outage of a set length, probes at a set rate), listed here with the reason.
const root = path.resolve(__dirname, '../..');

const allowed: Record<string, { count: number; why: string }> = {
  'apps/api/test/template-bounds.test.ts': { count: 1, why: 'paces health probes while a template is analysed (their latency is measured)' },
  'apps/api/test/template-render-budget.test.ts': { count: 1, why: "paces other clients' requests while renders run" },
  'apps/send-worker/test/database-outage.test.ts': { count: 1, why: 'how long Postgres stays down' },
  'apps/smtp/test/deadlines.test.ts': { count: 2, why: 'a client dribbling bytes at a set pace, and one pausing within the deadline' },
  'tests/cluster/smtp-load.ts': { count: 1, why: "a refused submission's retry backs off, as an SMTP client would" },
  'tests/fairness/fairness.ts': { count: 1, why: 'probes at a set rate' },
  'tests/fairness/smtp-big-mail.test.ts': { count: 1, why: "org B's SMTP probes at a set rate" },
  'tests/fairness/webhook-hang.test.ts': { count: 1, why: 'the abusing organization sends at a set rate' },
  'tests/fairness/segment-flood.test.ts': { count: 1, why: "the abusing organization's updates go at the attack's pace" },
  'tests/faults/injections.ts': { count: 2, why: 'the time between send-worker kills, and how long Postgres stays cut off' },
  'tests/faults/primary-email-provider-down.test.ts': { count: 1, why: 'how long the provider stays down' },
  'tests/faults/redis-down.test.ts': { count: 1, why: 'how long Redis stays down' },
  'tests/faults/redis-outage-fail-fast.test.ts': { count: 1, why: 'the pace of the probes during the outage' },
  'tests/faults/rig.ts': { count: 1, why: "a refused send's retry backs off" },
  'tests/faults/sigterm-drain.test.ts': { count: 2, why: 'half-sent bodies stay on the wire across the signal' },
  'tests/faults/sms-send-worker-killed.test.ts': { count: 1, why: 'the time between kills' },
  'tests/faults/webhook-receiver-down.test.ts': { count: 1, why: 'how long the receiver stays down' },
};

/** Test files: `test/` folders and `*.test.ts` beside the code of every workspace, and the suites under tests/. */
function testFiles(): string[] {
  const dirs = ['apps', 'packages'].flatMap((group) => readdirSync(path.join(root, group)).map((name) => `${group}/${name}`));
  const files: string[] = [];
  for (const dir of [...dirs, 'tests']) {
    for (const file of readdirSync(path.join(root, dir), { recursive: true }) as string[]) {
      const relative = path.join(dir, file).split(path.sep).join('/');
      if (/node_modules|\/dist\/|\/generated\//.test(relative) || !/\.tsx?$/.test(relative)) continue;
      if (dir !== 'tests' && !/\/test\//.test(`/${relative}`) && !/\.test\.tsx?$/.test(relative)) continue;
      files.push(relative);
    }
  }
  return files.filter((file) => !file.startsWith('tests/architecture/'));
}

/** Awaited fixed waits in a text: `await new Promise((r) => setTimeout(r, n))`, `await sleep(n)`, `await delay(n)`. */
function fixedWaitsIn(text: string): number {
  return [...text.matchAll(/await\s+(?:new\s+Promise\(\s*\(?\s*\w*\s*\)?\s*=>\s*setTimeout\(|sleep\(|delay\()/g)].length;
}

describe('tests wait for outcomes, not for time', () => {
  const files = testFiles();

  it('no awaited setTimeout or sleep in a test file beyond the listed ones', () => {
    const found = Object.fromEntries(files.map((file) => [file, fixedWaitsIn(readFileSync(path.join(root, file), 'utf8'))]).filter(([, count]) => (count as number) > 0));
    expect(found).toEqual(Object.fromEntries(Object.entries(allowed).map(([file, { count }]) => [file, count])));
  });

  it('the check sees what it checks', () => {
    expect(files).toContain('apps/api/test/messages.test.ts');
    expect(files).toContain('packages/core/src/group-commit.test.ts');
    expect(fixedWaitsIn('await new Promise((resolve) => setTimeout(resolve, 50));\nawait sleep(10);')).toBe(2);
    expect(fixedWaitsIn('await waitFor(() => done, 5_000);')).toBe(0);
  });
});
