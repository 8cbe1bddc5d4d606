import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// One unit of work: a change and the jobs it promises commit together, and the jobs are added after the commit in
// one place (packages/core/src/unit-of-work.ts). Nothing else dispatches an outbox, and no store enqueues: stores
// hold statements and may name a job's type, never reach a queue.
const root = path.resolve(__dirname, '../..');
const UNIT_OF_WORK = 'packages/core/src/unit-of-work.ts';

/** Every TypeScript file of the repository's code and tests, relative to its root. */
function sourceFiles(): string[] {
  return ['apps', 'packages', 'bench', 'scripts', 'tests'].flatMap((top) =>
    (readdirSync(path.join(root, top), { recursive: true }) as string[])
      .map((file) => `${top}/${file.split(path.sep).join('/')}`)
      .filter((file) => /\.tsx?$/.test(file) && !/(^|\/)(node_modules|dist|generated)\//.test(file)),
  );
}

/** `file:line` of each line matching `pattern`. */
function linesMatching(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) ? [`${file}:${index + 1}`] : [])),
  );
}

/** A value import (not `import type`) of a queue, of BullMQ, of the job adding in outbox.ts, or of the unit of work. */
const enqueuingImport = /^import\s+(?!type\b)[^;]*from\s+'(?:@tidings\/queue|bullmq|(?:\.\.?\/)+(?:outbox|unit-of-work)\.ts)'/m;

describe('one unit of work', () => {
  const files = sourceFiles();
  const outside = files.filter((file) => file !== UNIT_OF_WORK && file !== 'tests/architecture/unit-of-work.test.ts');

  it('dispatchOutbox is used nowhere outside the unit of work', () => {
    expect(linesMatching(outside, /\bdispatchOutbox\b/)).toEqual([]);
  });

  it('the unit of work dispatches in one place, after its work', () => {
    const calls = linesMatching([UNIT_OF_WORK], /await dispatchOutbox\(/);
    expect(calls).toHaveLength(1);
  });

  it('no store imports a queue or anything that enqueues', () => {
    const stores = files.filter((file) => file.endsWith('.store.ts'));
    expect(stores.length).toBeGreaterThan(10);
    const enqueuing = stores.filter((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .some((line) => enqueuingImport.test(line)),
    );
    expect(enqueuing).toEqual([]);
  });

  it('the checks see what they check', () => {
    expect(files).toContain(UNIT_OF_WORK);
    expect(enqueuingImport.test("import { sendQueueOf } from '@tidings/queue';")).toBe(true);
    expect(enqueuingImport.test("import { addJobs, type OutboxItem } from '../outbox.ts';")).toBe(true);
    expect(enqueuingImport.test("import { Queue } from 'bullmq';")).toBe(true);
    expect(enqueuingImport.test("import type { OutboxItem } from '../outbox.ts';")).toBe(false);
    expect(enqueuingImport.test("import type { QueueName } from '@tidings/queue';")).toBe(false);
  });
});
