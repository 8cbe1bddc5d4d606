// The shell commands of the README's first sections, in order, as a newcomer would copy them: the quick-start test
// runs exactly these. `npx tsx scripts/readme-commands.ts` prints them, one command per line.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The README sections whose commands a newcomer runs first (each with its `###` subsections). */
export const QUICK_START_SECTIONS = ['Quick start', 'Your first email and SMS'];

/**
 * The commands of the ```sh blocks under the given `##` headings, in document order; a line ending in `\` continues
 * on the next one (joined as the shell would), and blank lines are skipped. Comments stay: the shell drops them.
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
    for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
      const joined = block[1]!.replace(/\\\n\s*/g, '');
      commands.push(...joined.split('\n').filter((line) => line.trim() !== ''));
    }
  }
  return commands;
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
  const readme = readFileSync(path.resolve(__dirname, '../README.md'), 'utf8');
  for (const command of readmeCommands(readme)) console.log(command);
}
