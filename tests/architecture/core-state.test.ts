import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Core keeps no state of its own between calls: batchers, connections and caches that belong to a process are
// members of its dependencies, made and closed with them (`openDeps`). What remains at module level is listed here,
// each a cache of a pure function (same answer, only sooner) or a thread's own, with the reason.
const root = path.resolve(__dirname, '../..');
const coreSrc = path.join(root, 'packages/core/src');

const allowed: Record<string, string> = {
  'ids.ts: used': 'position in a buffer of random bytes: where the next id draws from, not state anyone reads',
  'sms/quiet-hours.ts: formatters': 'Intl.DateTimeFormat per time zone, a pure function memoized',
  'templates/render-task.ts: compiledByParts': "runs on a render thread: that thread's cache of parsed templates",
  'webhooks/delivery-attempt.ts: decrypted': 'endpoint secrets by ciphertext and key, a pure decryption memoized (bounded)',
};

/**
 * Module-level `let`s and collections (`new Map/WeakMap/Set/WeakSet`) in a file, as `file: name`. A collection named
 * in capitals (`GSM_BASIC`) is a constant table, filled where it is declared and only read.
 */
function moduleStateOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const name = path.relative(coreSrc, file).split(path.sep).join('/');
  const found = [...text.matchAll(/^(?:export\s+)?let\s+(\w+)/gm), ...text.matchAll(/^(?:export\s+)?(?:const|var)\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(?:Weak)?(?:Map|Set)\b/gm)];
  return found.filter((match) => !/^[A-Z][A-Z0-9_]*$/.test(match[1]!)).map((match) => `${name}: ${match[1]}`);
}

const files = (readdirSync(coreSrc, { recursive: true }) as string[])
  .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.split(path.sep).includes('generated'))
  .map((file) => path.join(coreSrc, file));

describe('core holds no module-level state', () => {
  it('no module-level Map, WeakMap, Set or let in packages/core/src beyond the listed caches', () => {
    const found = files.flatMap(moduleStateOf);
    expect(found.filter((entry) => !(entry in allowed))).toEqual([]);
    // an entry whose code is gone leaves the list
    expect(Object.keys(allowed).filter((entry) => !found.includes(entry))).toEqual([]);
  });

  it('no `as Deps` casts: a function that needs less takes a Pick of the dependencies', () => {
    const dirs = ['packages/core/src', ...readdirSync(path.join(root, 'apps')).map((app) => `apps/${app}/src`)];
    const casts = dirs.flatMap((dir) =>
      (readdirSync(path.join(root, dir), { recursive: true }) as string[])
        .filter((file) => /\.tsx?$/.test(file) && /\bas Deps\b/.test(readFileSync(path.join(root, dir, file), 'utf8')))
        .map((file) => `${dir}/${file}`),
    );
    expect(casts).toEqual([]);
  });

  it('the check sees what it checks', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(moduleStateOf(path.join(coreSrc, 'ids.ts'))).toEqual(['ids.ts: used']);
  });
});
