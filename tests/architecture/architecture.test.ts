import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The dependency rules of the architecture, checked on the source: apps -> bootstrap -> core -> (db, queue,
// providers, webhooks, contracts, config, telemetry); runtime (process plumbing) -> (config, telemetry). Tests may cross these lines (an end-to-end test drives the API
// and a worker together); the code that runs in production may not.
const root = path.resolve(__dirname, '../..');
const workspaceDirs = (group: string) => readdirSync(path.join(root, group)).map((name) => `${group}/${name}`);
const apps = workspaceDirs('apps');
const packages = workspaceDirs('packages');
const nameOf = (dir: string) => (JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { name: string }).name;
const appNames = new Set(apps.map(nameOf));

/** Every source file of a workspace that ships (src/, tests beside the code left out). */
function sourceFiles(dir: string): string[] {
  const src = path.join(root, dir, 'src');
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((file) => /\.(ts|tsx|js|mjs|cjs)$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.split(path.sep).includes('generated'))
    .map((file) => path.join(src, file));
}

/** Module specifiers a file imports, statically or dynamically, or re-exports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)];
  return found.map((match) => match[1]);
}

const relative = (file: string) => path.relative(root, file);

describe('architecture', () => {
  it('no app imports another app (package name or a path into it)', () => {
    const crossings: string[] = [];
    for (const app of apps) {
      const own = nameOf(app);
      for (const file of sourceFiles(app)) {
        for (const spec of importsOf(file)) {
          const packageName = spec.split('/').slice(0, 2).join('/');
          const resolved = spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(file), spec)) : '';
          const intoOtherApp = apps.some((other) => other !== app && resolved.startsWith(`${other}/`));
          if ((appNames.has(packageName) && packageName !== own) || intoOtherApp) crossings.push(`${relative(file)} imports ${spec}`);
        }
      }
    }
    expect(crossings).toEqual([]);
  });

  it("no app's package.json depends on another app (devDependencies, for tests, may)", () => {
    const crossings = apps.flatMap((app) => {
      const { dependencies = {} } = JSON.parse(readFileSync(path.join(root, app, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      return Object.keys(dependencies)
        .filter((dep) => appNames.has(dep))
        .map((dep) => `${app} depends on ${dep}`);
    });
    expect(crossings).toEqual([]);
  });

  it('only packages/core and packages/db touch the database client (Prisma); others may only run migrations', () => {
    // The migration tools of packages/db are the operator's (`tidings migrate`), not a way into the data.
    const migrationTools = new Set(['migrate', 'ensureDatabase', 'listMigrations', 'diffSchemaSinceLastMigration']);
    const offenders: string[] = [];
    // packages/testing is test support (it creates the test databases), never shipped; packages/bootstrap opens and
    // closes a process's clients (the primary's, and the read replicas'), and runs nothing on them
    const opening = new Set(['createDb', 'closeDb', 'createReads']);
    for (const dir of [...apps, ...packages].filter((d) => !['packages/core', 'packages/db', 'packages/testing'].includes(d))) {
      for (const file of sourceFiles(dir)) {
        const text = readFileSync(file, 'utf8');
        for (const spec of importsOf(file)) {
          if (spec.startsWith('@prisma/') || spec === 'pg' || /generated\/client/.test(spec)) offenders.push(`${relative(file)} imports ${spec}`);
        }
        for (const match of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'@tidings\/db'/g)) {
          const names = match[2]
            .split(',')
            .map(
              (n) =>
                n
                  .trim()
                  .replace(/^type\s+/, '')
                  .split(/\s+as\s+/)[0],
            )
            .filter(Boolean);
          const others = names.filter((n) => !migrationTools.has(n) && !(dir === 'packages/bootstrap' && opening.has(n)));
          if (others.length > 0) offenders.push(`${relative(file)} imports ${others.join(', ')} from @tidings/db`);
        }
        if (/import\s+\*\s+as\s+\w+\s+from\s+'@tidings\/db'/.test(text)) offenders.push(`${relative(file)} imports all of @tidings/db`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the apps reach the database only through core: none lists @tidings/db or Prisma as a dependency', () => {
    const offenders = apps.flatMap((app) => {
      const { dependencies = {} } = JSON.parse(readFileSync(path.join(root, app, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      return Object.keys(dependencies)
        .filter((dep) => dep === '@tidings/db' || dep.startsWith('@prisma/') || dep === 'pg')
        .map((dep) => `${app} depends on ${dep}`);
    });
    expect(offenders).toEqual([]);
  });

  it('packages/runtime stays below the domain: it imports nothing of ours but config and telemetry', () => {
    const offenders = sourceFiles('packages/runtime').flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('@tidings/') && !['@tidings/config', '@tidings/telemetry'].includes(spec))
        .map((spec) => `${relative(file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("a process's dependencies are built in packages/bootstrap only: no other shipped code opens connections, queues, providers, a logger or metrics", () => {
    const builders = /(?<!function\s)\b(createDb|createRedis|createQueues|createLogger|createMetrics|buildProviders)\s*\(/;
    const offenders = [...apps, ...packages]
      .filter((dir) => !['packages/bootstrap', 'packages/testing'].includes(dir))
      .flatMap((dir) => sourceFiles(dir))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => !/^\s*(\*|\/\/)/.test(line) && builders.test(line))
          .map((line) => `${relative(file)}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
    expect(readFileSync(path.join(root, 'packages/bootstrap/src/open-deps.ts'), 'utf8')).toMatch(builders);
  });

  it("no shipped code imports a file under another workspace's src/: only what its exports map offers", () => {
    const isDeep = (spec: string) => /^@tidings\/[^/]+\/src\//.test(spec);
    const deep = [...apps, ...packages].flatMap((dir) =>
      sourceFiles(dir).flatMap((file) =>
        importsOf(file)
          .filter(isDeep)
          .map((spec) => `${relative(file)}: ${spec}`),
      ),
    );
    expect(deep).toEqual([]);
    expect(isDeep('@tidings/runtime/src/tracing.ts')).toBe(true);
    expect(isDeep('@tidings/runtime/tracing')).toBe(false);
  });

  it("apps reach the providers only through @tidings/providers' entry, never a file inside it", () => {
    /** Whether `spec`, imported by `file`, names a module inside packages/providers rather than its entry. */
    const intoProviders = (file: string, spec: string) =>
      spec.startsWith('@tidings/providers/') || (spec.startsWith('.') && relative(path.resolve(path.dirname(file), spec)).startsWith('packages/providers/'));
    const deep = apps.flatMap((app) =>
      sourceFiles(app).flatMap((file) =>
        importsOf(file)
          .filter((spec) => intoProviders(file, spec))
          .map((spec) => `${relative(file)}: ${spec}`),
      ),
    );
    expect(deep).toEqual([]);
    const someApp = path.join(root, 'apps/api/src/server.ts');
    expect(intoProviders(someApp, '@tidings/providers/src/resend.provider.ts')).toBe(true);
    expect(intoProviders(someApp, '../../../packages/providers/src/resend.provider.ts')).toBe(true);
    expect(intoProviders(someApp, '@tidings/providers')).toBe(false);
  });

  it('the rules see what they check: an app that imported another would be caught', () => {
    // a guard against a check that passes because it reads nothing
    expect(apps.length).toBeGreaterThanOrEqual(5);
    expect(sourceFiles('apps/api').some((file) => importsOf(file).includes('@tidings/core'))).toBe(true);
    expect(importsOf(path.join(root, 'apps/api/src/server.ts'))).toContain('@tidings/runtime');
  });
});
