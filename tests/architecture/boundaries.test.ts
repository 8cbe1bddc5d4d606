import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { circlesOf, importsOf, root, typescriptFiles } from './import-graph.ts';

// The package boundaries as facts the tools enforce: each workspace says what it offers (an `exports` map, which
// node, TypeScript, jest and esbuild all refuse to reach past), core stands on interfaces of its own rather than on
// the process plumbing, and no module reaches itself through its imports.
const workspaces = ['apps', 'packages'].flatMap((group) => readdirSync(path.join(root, group)).map((name) => `${group}/${name}`));
const manifest = (dir: string) =>
  JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { exports?: unknown; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const files = typescriptFiles();
const nameOf = (dir: string) => (JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { name: string }).name;

/** The workspaces `name` depends on, directly or not, through dependencies and devDependencies. */
function workspacesUnder(name: string): Set<string> {
  const byName = new Map(workspaces.map((dir) => [nameOf(dir), dir]));
  const found = new Set<string>();
  const visit = (current: string) => {
    const { dependencies = {}, devDependencies = {} } = manifest(byName.get(current)!);
    for (const dep of Object.keys({ ...dependencies, ...devDependencies })) {
      if (byName.has(dep) && !found.has(dep)) {
        found.add(dep);
        visit(dep);
      }
    }
  };
  visit(name);
  return found;
}
const relative = (file: string) => path.relative(root, file);

describe('boundaries', () => {
  it('every workspace declares an exports map', () => {
    expect(workspaces.filter((dir) => typeof manifest(dir).exports !== 'object')).toEqual([]);
  });

  it("nothing (code, tests, scripts, benchmarks) imports a file under a workspace's src/", () => {
    const deep = files.flatMap((file) =>
      importsOf(file)
        .filter((spec) => /^@tidings\/[^/]+\/src\//.test(spec))
        .map((spec) => `${relative(file)}: ${spec}`),
    );
    expect(deep).toEqual([]);
  });

  it('core does not depend on @tidings/runtime: its package.json does not list it and no source of it imports it', () => {
    const { dependencies = {}, devDependencies = {} } = manifest('packages/core');
    expect(Object.keys({ ...dependencies, ...devDependencies })).not.toContain('@tidings/runtime');
    const core = files.filter((file) => relative(file).startsWith('packages/core/'));
    const offenders = core.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('@tidings/runtime'))
        .map((spec) => `${relative(file)}: ${spec}`),
    );
    expect(offenders).toEqual([]);
    expect(core.length).toBeGreaterThan(100);
  });

  it('@tidings/telemetry stands below everything: it imports no other workspace', () => {
    const offenders = files
      .filter((file) => relative(file).startsWith('packages/telemetry/src/'))
      .flatMap((file) => importsOf(file).filter((spec) => spec.startsWith('@tidings/')));
    expect(offenders).toEqual([]);
  });

  it('each workspace declares what it imports: its code in dependencies, its tests in either list', () => {
    // The SDK is published with no dependencies (its imports of @tidings/contracts are types, compiled away) and
    // packages/testing is test support that never ships: their code's imports are devDependencies.
    const devOnly = new Set(['packages/sdk', 'packages/testing']);
    // A workspace that @tidings/testing itself stands on cannot declare it without a circle of packages (turbo warns
    // of one): its tests reach the test support through the root's node_modules.
    const belowTesting = workspacesUnder('@tidings/testing');
    const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    const isExternal = (spec: string) => !spec.startsWith('.') && !spec.startsWith('node:') && !builtinModules.includes(packageOf(spec));
    const undeclared = workspaces.flatMap((dir) => {
      const { dependencies = {}, devDependencies = {} } = manifest(dir);
      const name = nameOf(dir);
      return files
        .filter((file) => relative(file).startsWith(`${dir}/`))
        .flatMap((file) => {
          const isCode = relative(file).startsWith(`${dir}/src/`) && !/\.test\.tsx?$/.test(file) && !devOnly.has(dir);
          const declared = isCode ? dependencies : { ...dependencies, ...devDependencies };
          return importsOf(file)
            .filter(isExternal)
            .map(packageOf)
            .filter((pkg) => pkg !== name && !(pkg in declared) && !(pkg === '@tidings/testing' && !isCode && belowTesting.has(name)))
            .map((pkg) => `${relative(file)}: ${pkg}`);
        });
    });
    expect(undeclared).toEqual([]);
    expect(existsSync(path.join(root, 'packages/core/src/rate-limit.ts'))).toBe(true);
    expect(importsOf(path.join(root, 'packages/core/src/rate-limit.ts'))).toContain('ioredis');
  });

  it('no circle of workspace packages either (dependencies and devDependencies): turbo orders tasks by them', () => {
    expect(workspaces.map(nameOf).filter((name) => workspacesUnder(name).has(name))).toEqual([]);
  });

  it('no import circle anywhere, type-only imports included', () => {
    expect(circlesOf(files)).toEqual([]);
  });

  it('the circle check sees circles, and follows workspace packages through their exports maps', () => {
    const config = (name: string) => path.join(root, 'packages/config/src', name);
    expect(files.length).toBeGreaterThan(500);
    expect(files).toContain(path.join(root, 'packages/core/src/deps.ts'));
    // a made-up graph: a -> b -> a is one circle, c alone none
    const graph: Record<string, string[]> = { a: ['b'], b: ['a'], c: ['a'] };
    expect(circlesOf(['a', 'b', 'c'], (file) => graph[file] ?? [])).toEqual([['a', 'b']]);
    expect(importsOf(config('env-file.ts'))).toContain('./config-error.ts');
  });
});
