import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../scripts/readme-commands.ts';

// Docs that cannot drift: what the code reads, serves or runs, each named in the page that documents it.
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const sourcesOf = (dir: string) =>
  readdirSync(path.join(repoRoot, dir))
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.test.ts'))
    .map((f) => read(path.join(dir, f)))
    .join('\n');

// Standard OpenTelemetry variables the SDK itself reads (tracing starts it; docs/configuration.md lists them).
const READ_BY_OPENTELEMETRY = ['OTEL_BSP_SCHEDULE_DELAY', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG'];

/**
 * The environment variables the configuration reads: the keys of its schema, the env file's own, and the tracing's
 * (read apart, since tracing starts before the configuration is loaded).
 */
function variablesReadByConfig(): string[] {
  const source = sourcesOf('packages/config/src');
  const keys = [...source.matchAll(/^\s+([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
  const direct = [...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!);
  const tracing = [...read('packages/runtime/src/tracing.ts').matchAll(/env\.(OTEL_[A-Z0-9_]+)/g)].map((m) => m[1]!);
  return [...new Set([...keys, ...direct, ...tracing, ...READ_BY_OPENTELEMETRY])].sort();
}

/** The variables docs/configuration.md's tables document, by their first cell (`A` / `B` names both). */
function variablesDocumented(): string[] {
  const rows = read('docs/configuration.md')
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  return [...new Set(rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)))].sort();
}

const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('docs that cannot drift', () => {
  it('documents in docs/configuration.md every environment variable the configuration reads, and no other', () => {
    const readByConfig = variablesReadByConfig();
    const documented = variablesDocumented();
    // one row may document a variable beside another (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` in the endpoint's)
    const page = read('docs/configuration.md');
    expect({ undocumented: readByConfig.filter((v) => !documented.includes(v) && !page.includes(`\`${v}\``)) }).toEqual({ undocumented: [] });
    expect({ notRead: documented.filter((v) => !readByConfig.includes(v)) }).toEqual({ notRead: [] });
  });

  it('lists every tidings command in docs/cli.md', async () => {
    const { commands } = await import('../../packages/cli/src/commands/index.ts');
    const usage = read('docs/cli.md');
    const block = usage.slice(usage.indexOf('## Commands'), usage.indexOf('\n## ', usage.indexOf('## Commands') + 1));
    expect(commands.length).toBeGreaterThan(15);
    expect(commands.map((c) => c.name).filter((name) => !block.includes(`tidings ${name}`))).toEqual([]);
  });

  it('names every page of the dashboard’s sidebar in docs/dashboard.md', () => {
    const source = `${sourcesOf('apps/dashboard/src/pages')}\n${read('apps/dashboard/src/app.ts')}`;
    const labels = [...source.matchAll(/nav: \{ label: '([^']+)'|\{ label: '([^']+)', href: /g)].map((m) => m[1] ?? m[2]!);
    expect(labels).toEqual(expect.arrayContaining(['Topics', 'Audit log', 'Queues', 'Contacts']));
    const page = read('docs/dashboard.md');
    expect(labels.filter((label) => !page.includes(`**${label}**`) && !page.includes(`> ${label}**`))).toEqual([]);
  });

  it('shows in docs/cli.md a status sample with every queue and every app tidings status reports', async () => {
    const { QUEUE_NAMES } = await import('../../packages/queue/src/queues.ts');
    const apps = [...read('packages/cli/src/commands/status.ts').matchAll(/probe\('([\w-]+)'/g)].map((m) => m[1]!);
    expect(apps).toContain('smtp');
    const page = read('docs/cli.md');
    const sample = page.slice(page.indexOf('```', page.indexOf('## Status')), page.indexOf('\n## ', page.indexOf('## Status') + 1));
    const named = sample.split('\n').map((line) => line.split(/\s{2,}/)[0]!);
    expect({ missing: [...QUEUE_NAMES.map((q) => `queue ${q}`), ...apps].filter((row) => !named.includes(row)) }).toEqual({ missing: [] });
  });

  it('states in docs/sending.md the size of the open pixel the tracking route serves', () => {
    const base64 = /const PIXEL = Buffer\.from\('([^']+)', 'base64'\)/.exec(read('apps/api/src/routes/tracking.routes.ts'))?.[1];
    const pixel = Buffer.from(base64 ?? '', 'base64');
    // a GIF's logical screen width and height follow its 6-byte signature
    expect([pixel.subarray(0, 6).toString(), pixel.readUInt16LE(6), pixel.readUInt16LE(8)]).toEqual(['GIF89a', 1, 1]);
    const page = read('docs/sending.md').replace(/\s+/g, ' ');
    expect(/gets a (\w+) image `\{PUBLIC_API_URL\}\/o\//.exec(page)?.[1]).toBe('1x1');
    expect(/answers a (\d+)-byte GIF/.exec(page)?.[1]).toBe(String(pixel.length));
  });

  it('counts in the README as many apps as apps/ holds', () => {
    const apps = readdirSync(path.join(repoRoot, 'apps')).filter((name) => statSync(path.join(repoRoot, 'apps', name)).isDirectory());
    const stated = /runs the (\w+) apps/.exec(read('README.md'));
    expect(stated?.[1]).toBe(NUMBERS[apps.length]);
  });
});
