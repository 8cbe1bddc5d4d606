import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The send attempt reads top to bottom: what it runs (its value imports, followed within core) stays small, and
// none of it is about people, broadcasts, contacts or verifications. What those modules add to a send (the
// transforms of an outgoing email, the steps after a failure) reaches the attempt through its dependencies
// (sending-extensions.ts). `import type` is left out: it runs nothing.
const coreSrc = path.resolve(__dirname, '../../packages/core/src');
const ATTEMPT = 'messages/send-attempt.ts';
const MOST_FILES = 25;

/** The relative modules a file imports for their values (a line `import type` or `import { type A, type B }` runs nothing). */
function valueImportsOf(file: string): string[] {
  const text = readFileSync(path.join(coreSrc, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?'(\.[^']+)'/gm)) {
    const names = match[2]?.trim() ?? '';
    const isTypeOnly = Boolean(match[1]) || /^\{\s*(?:type\s+\w+(?:\s+as\s+\w+)?\s*,?\s*)+\}$/.test(names);
    if (isTypeOnly) continue;
    const target = path
      .relative(coreSrc, path.resolve(path.dirname(path.join(coreSrc, file)), match[3]!))
      .split(path.sep)
      .join('/');
    if (existsSync(path.join(coreSrc, target))) found.push(target);
  }
  return found;
}

/** Every core file `entry` runs, itself included. */
function closureOf(entry: string): string[] {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const next of valueImportsOf(file)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return [...seen].sort();
}

describe('the send attempt', () => {
  const closure = closureOf(ATTEMPT);

  it(`runs at most ${MOST_FILES} files of core`, () => {
    expect(closure.length).toBeLessThanOrEqual(MOST_FILES);
  });

  it('imports nothing of people, broadcasts, contacts, topics, segments or verifications', () => {
    expect(closure.filter((file) => /^(people|broadcasts|contacts|topics|segments|verifications)\//.test(file))).toEqual([]);
  });

  it('the measure sees what it measures', () => {
    expect(closure).toEqual(expect.arrayContaining([ATTEMPT, 'messages/send-decision.ts', 'messages/delivery.ts', 'unit-of-work.ts']));
    // a type-only import is not followed; a value import beside types is
    expect(valueImportsOf('deps.ts')).toEqual([]);
    expect(closureOf('sending-extensions.ts')).toEqual(expect.arrayContaining(['people/password-reset.service.ts', 'broadcasts/unsubscribe-token.ts']));
  });
});
