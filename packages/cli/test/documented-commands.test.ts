// Every command the README and docs/*.md show, checked against what exists: each `tidings` command is one the CLI
// knows, with options it takes; each `npm run` script is in the package.json it names; each file given to node or
// tsx is in the repository (or is a build output). The quick-start test runs the README's first commands for real.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { commands } from '../src/commands/index.ts';
import { findCommand } from '../src/command.ts';
import { documentationFiles, documentedCommands, repoRoot } from '../../../scripts/readme-commands.ts';

const documented = documentationFiles().flatMap((page) => documentedCommands(readFileSync(path.join(repoRoot, page), 'utf8')).map((command) => ({ page, command })));

/** The scripts of each workspace by package name, and the root's under ''. */
const scripts = new Map<string, Record<string, string>>();
const readScripts = (dir: string) => JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')) as { name: string; scripts?: Record<string, string> };
scripts.set('', readScripts('.').scripts ?? {});
for (const group of ['apps', 'packages', '.']) {
  for (const name of group === '.' ? ['bench'] : readdirSync(path.join(repoRoot, group))) {
    const pkg = readScripts(path.join(group, name));
    scripts.set(pkg.name, pkg.scripts ?? {});
  }
}

/** What is wrong with one documented `tidings ...` invocation (the words after `tidings`), or null. */
function tidingsProblem(words: string[]): string | null {
  if (words[0] === '<command>' || words.length === 0 || ['--help', '-h', 'help'].includes(words[0]!)) return null;
  // `tidings orgs --help`: a group's help
  if (words.length === 2 && ['--help', '-h'].includes(words[1]!)) {
    return commands.some((command) => command.name.split(' ')[0] === words[0]) ? null : `no such group: tidings ${words[0]}`;
  }
  // `keys disable|enable ...` documents two commands at once
  const alternatives = words[1]?.includes('|') ? words[1].split('|').map((action) => [words[0]!, action, ...words.slice(2)]) : [words];
  for (const argv of alternatives) {
    const found = findCommand(commands, argv);
    if (!found) return `no such command: tidings ${argv.slice(0, 2).join(' ')}`;
    const known = new Set(['help', 'h', ...Object.keys(found.command.options ?? {})]);
    const unknown = found.rest.filter((word) => word.startsWith('--')).map((word) => word.slice(2).replace(/[\]|].*$/, ''));
    const wrong = unknown.filter((name) => !known.has(name));
    if (wrong.length) return `tidings ${found.command.name} has no option --${wrong.join(', --')}`;
  }
  return null;
}

function problemOf(command: string): string | null {
  const words = command
    .replace(/^export \$\(/, '')
    .replace(/\)$/, '')
    .split(/\s+/)
    .map((word) => word.replace(/^\[/, ''));
  const [tool, ...rest] = words;
  if (tool === 'npx' && rest[0] === 'tidings') return tidingsProblem(rest.slice(1));
  if (tool === 'tidings') return tidingsProblem(rest);
  if (tool === 'node' && rest[0]?.endsWith('tidings.js')) return tidingsProblem(rest.slice(1));
  if (tool === 'npm' && rest[0] === 'run') {
    const [script] = rest.slice(1);
    if (script === 'tidings') return tidingsProblem(rest.slice(rest.indexOf('--') + 1).filter((word) => word !== '--'));
    const workspace = rest.includes('-w') ? rest[rest.indexOf('-w') + 1]! : '';
    if (!scripts.has(workspace)) return `no workspace ${workspace}`;
    return script && script in scripts.get(workspace)! ? null : `no script "${script}" in ${workspace || 'the root package.json'}`;
  }
  if ((tool === 'node' || (tool === 'npx' && rest[0] === 'tsx')) && rest.length) {
    const file = tool === 'node' ? rest[0]! : rest[1]!;
    if (file.startsWith('-') || file.includes('/dist/')) return null; // a build output: made by `npm run build`
    return existsSync(path.join(repoRoot, file)) ? null : `no file ${file}`;
  }
  return null;
}

describe('the commands the documentation shows', () => {
  it('finds the commands of every page, the quick start and the CLI page included', () => {
    const pages = new Set(documented.map(({ page }) => page));
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/cli.md');
    expect(documented.filter(({ command }) => /\btidings (orgs|users|keys|status)/.test(command)).length).toBeGreaterThan(20);
  });

  it('names only tidings commands and options, npm scripts and files that exist', () => {
    const problems = documented.flatMap(({ page, command }) => {
      const problem = problemOf(command);
      return problem ? [`${page}: ${command}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('would catch a command that does not exist', () => {
    expect(problemOf('npx tidings orgs delete org_1')).toBe('no such command: tidings orgs delete');
    expect(problemOf('tidings keys rotate --org <orgId> --key <keyId> --now')).toBe('tidings keys rotate has no option --now');
    expect(problemOf('npm run bench:nothing')).toBe('no script "bench:nothing" in the root package.json');
    expect(problemOf('npm run build -w @tidings/sdk')).toBeNull();
  });
});
