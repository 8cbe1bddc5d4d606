// The shell commands and links of the README and docs/*.md. The quick-start test runs the README's first sections'
// commands exactly as written; the docs tests check that every other documented command names a script, a file or a
// `tidings` command that exists, and that every relative link leads somewhere. `npx tsx scripts/readme-commands.ts`
// prints the quick start's commands, one per line (`--all`: every documented command, with its file).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The README sections whose commands a newcomer runs first (each with its `###` subsections). */
export const QUICK_START_SECTIONS = ['Quick start', 'Your first email and SMS'];

/** The repository's root folder. */
export const repoRoot = path.resolve(__dirname, '..');

/** The commands of one ```sh block: a line ending in `\` continues on the next (joined as the shell would). */
function blockCommands(block: string): string[] {
  const joined = block.replace(/\\\n\s*/g, '');
  return joined.split('\n').filter((line) => line.trim() !== '');
}

/**
 * The commands of the ```sh blocks under the given `##` headings, in document order; blank lines are skipped.
 * Comments stay: the shell drops them.
 * @example readmeCommands(readFileSync('README.md', 'utf8')) // ['npm ci && npm start', 'npm test', 'export $(npx tidings ...', ...]
 */
export function readmeCommands(markdown: string, sections: string[] = QUICK_START_SECTIONS): string[] {
  const commands: string[] = [];
  for (const title of sections) {
    const start = markdown.indexOf(`\n## ${title}\n`);
    if (start < 0) throw new Error(`README has no section "## ${title}"`);
    const rest = markdown.slice(start + title.length + 5);
    const end = rest.search(/\n## /);
    const section = end < 0 ? rest : rest.slice(0, end);
    for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) commands.push(...blockCommands(block[1]!));
  }
  return commands;
}

/**
 * Every command a page documents: the lines of its ```sh blocks, and the inline code spans that start with `npm `,
 * `npx ` or `tidings ` (the scripts table, the prose). Each is given without its trailing comment.
 * @example documentedCommands('Run `npm run bench`.') // ['npm run bench']
 */
export function documentedCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) commands.push(...blockCommands(block[1]!));
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  for (const span of prose.matchAll(/`((?:npm|npx|tidings) [^`]+)`/g)) commands.push(span[1]!);
  return commands.map(withoutComment).filter((command) => command !== '');
}

/** README.md and every docs/*.md, as paths relative to the root. */
export function documentationFiles(root = repoRoot): string[] {
  const docs = existsSync(path.join(root, 'docs')) ? readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')) : [];
  return ['README.md', ...docs.sort().map((name) => `docs/${name}`)];
}

/**
 * The anchors of a page's headings, as GitHub makes them: lower case, punctuation dropped, spaces to hyphens, and
 * `-1`, `-2` after a repeated one. Headings inside code blocks are not headings.
 * @example headingAnchors('## Keys and modes\n### `tidings` help') // ['keys-and-modes', 'tidings-help']
 */
export function headingAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  for (const [, title] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = title!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug);
    seen.set(slug, (count ?? -1) + 1);
    anchors.push(count === undefined ? slug : `${slug}-${count + 1}`);
  }
  return anchors;
}

/** The targets of a page's links and images that are not absolute URLs (`other.md#anchor`, `#anchor`, `../apps/x.png`). */
export function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * The relative links of the documentation that lead nowhere: a missing file, or an anchor the target page has no
 * heading for. Each as `page: target`.
 */
export function brokenLinks(root = repoRoot): string[] {
  const broken: string[] = [];
  for (const page of documentationFiles(root)) {
    for (const target of relativeLinks(readFileSync(path.join(root, page), 'utf8'))) {
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved = file === '' ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), decodeURI(file));
      if (!existsSync(resolved)) broken.push(`${page}: ${target}`);
      else if (anchor !== undefined && !headingAnchors(readFileSync(resolved, 'utf8')).includes(anchor)) broken.push(`${page}: ${target}`);
    }
  }
  return broken;
}

/** Drops a trailing shell comment (` # ...` outside quotes), to recognise a command by what it runs. */
export function withoutComment(command: string): string {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i += 1) {
    const char = command[i]!;
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '#' && (i === 0 || /\s/.test(command[i - 1]!))) return command.slice(0, i).trimEnd();
  }
  return command.trimEnd();
}

if (require.main === module) {
  if (process.argv.includes('--all')) {
    for (const page of documentationFiles()) {
      for (const command of documentedCommands(readFileSync(path.join(repoRoot, page), 'utf8'))) console.log(`${page}: ${command}`);
    }
  } else {
    for (const command of readmeCommands(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'))) console.log(command);
  }
}
