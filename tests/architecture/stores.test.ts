import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// A store per aggregate: `*.store.ts` modules are the only ones in core that hold database statements, whatever the
// means (a Prisma model call, raw SQL, a SQL fragment, the pg pool). Services call stores by names that say what they
// do; they may bound a unit of work with `db.$transaction` and hand its `tx` to the stores.
const root = path.resolve(__dirname, '../..');
const coreSrc = path.join(root, 'packages/core/src');
const models = [...readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8').matchAll(/^model (\w+)/gm)].map((match) => match[1]![0]!.toLowerCase() + match[1]!.slice(1));
const modelCall = new RegExp(
  `\\.(?:${models.join('|')})\\s*\\.\\s*(?:findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy)\\b`,
);
const rawStatement = /\$queryRaw|\$executeRaw|\bqueryRows\b|\bqueryPrepared\b|\bpgPoolOf\b|\bPrisma\.(?:sql|raw|join|empty)\b/;

const files = (readdirSync(coreSrc, { recursive: true }) as string[])
  .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
  .map((file) => file.split(path.sep).join('/'));

/** The lines of a file that hold a database statement, as `file:line`. */
function statementsIn(file: string): string[] {
  return readFileSync(path.join(coreSrc, file), 'utf8')
    .split('\n')
    .flatMap((line, index) => (modelCall.test(line) || rawStatement.test(line) ? [`${file}:${index + 1}`] : []));
}

/** Shipped source files of the other workspaces (packages/db is the client itself, packages/testing builds test databases). */
const otherWorkspaces = ['apps', 'packages']
  .flatMap((group) => readdirSync(path.join(root, group)).map((name) => `${group}/${name}`))
  .filter((dir) => !['packages/core', 'packages/db', 'packages/testing'].includes(dir))
  .flatMap((dir) =>
    (readdirSync(path.join(root, dir, 'src'), { recursive: true }) as string[])
      .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.split(path.sep).includes('generated'))
      .map((file) => path.join(root, dir, 'src', file)),
  );

/** The lines of a file that hold a database statement, as `file:line` from the repository's root; comments aside (examples). */
const statementsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, index) => (!/^\s*(\*|\/\/|\/\*\*)/.test(line) && (modelCall.test(line) || rawStatement.test(line)) ? [`${path.relative(root, file)}:${index + 1}`] : []));

describe('stores', () => {
  it('only *.store.ts modules in core hold database statements', () => {
    const outside = files.filter((file) => !file.endsWith('.store.ts')).flatMap(statementsIn);
    expect(outside).toEqual([]);
  });

  it('no other workspace holds a database statement: the apps (the dashboard too) and the bootstrap go through core', () => {
    expect(otherWorkspaces.flatMap(statementsOf)).toEqual([]);
    expect(otherWorkspaces.some((file) => file.endsWith('templates.page.tsx'))).toBe(true);
    expect(otherWorkspaces.some((file) => file.endsWith('open-deps.ts'))).toBe(true);
  });

  it('the check sees what it checks', () => {
    expect(models).toEqual(expect.arrayContaining(['message', 'contact', 'idempotencyRecord']));
    expect(modelCall.test('await tx.topic.findFirst({ where })')).toBe(true);
    expect(modelCall.test('await deps.db.contact.count()')).toBe(true);
    expect(rawStatement.test('db.$queryRaw`SELECT 1`')).toBe(true);
    expect(rawStatement.test('Prisma.sql`"orgId" = 1`')).toBe(true);
    expect(modelCall.test('payload.message.update')).toBe(true);
    expect(files.filter((file) => file.endsWith('.store.ts')).length).toBeGreaterThan(0);
  });
});
