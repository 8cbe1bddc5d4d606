import type { Config } from '@tidings/config';
import { commandUsage, findCommand, globalUsage, groupUsage, isHelpRequest, parseCommand, UsageError, type Opened } from './command.ts';
import { commands } from './commands/index.ts';

/** How long closing the connections may take after a command (a store that is down never answers a goodbye). */
const CLOSE_TIMEOUT_MS = 5000;

type Output = { out: (text: string) => void; err: (text: string) => void };

/**
 * What `tidings ... --help` prints: one command's usage and options, a group's commands (`tidings orgs --help`), or
 * every command.
 */
export function helpFor(argv: string[]): string {
  const words = argv.filter((word) => word !== 'help' && word !== '--help' && word !== '-h');
  const found = findCommand(commands, words);
  if (found) return commandUsage(found.command);
  return (words[0] && groupUsage(commands, words[0])) || globalUsage(commands);
}

/** The usage to print with a command line that names no command: its group's, when the group exists. */
const usageNear = (argv: string[]) => (argv[0] && groupUsage(commands, argv[0])) || globalUsage(commands);

/**
 * Runs one `tidings` command and returns its exit code: 0 done, 1 failed, 2 a mistake in the command line (the
 * usage is printed). JSON results go to `out`, progress and errors to `err`.
 * @example process.exitCode = await runCli(['orgs', 'create', '--name', 'Acme'], loadConfig(), console);
 */
export async function runCli(argv: string[], config: Config, io: Output = { out: console.log, err: console.error }): Promise<number> {
  if (isHelpRequest(argv)) {
    io.out(helpFor(argv));
    return 0;
  }
  let opened: (Opened & { close(): Promise<void> }) | undefined;
  const open = async () => {
    if (!opened) {
      // loaded here, not at the top: help and usage errors answer without the domain code and its clients
      const [core, { openDeps }] = await Promise.all([import('@tidings/core'), import('@tidings/bootstrap')]);
      const base = openDeps(config, 'cli', { runsJobs: true });
      // what a command changes is audited as the CLI's doing
      const deps = { ...base, actor: core.CLI_ACTOR };
      opened = { deps, core, close: () => base.close() };
    }
    return opened;
  };
  try {
    const found = findCommand(commands, argv);
    if (!found) throw new UsageError(argv.length ? `unknown command: ${argv.join(' ')}` : 'no command given', usageNear(argv));
    const { values, args } = parseCommand(found.command, found.rest);
    return await found.command.run({ config, out: io.out, err: io.err, open }, values, args);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n${error.usage}`);
      return 2;
    }
    io.err(`error: ${(error as Error).message}`);
    // a value the command refused (a bad email, a short password) is a mistake in the command line, as its usage is
    return (error as { code?: string }).code === 'BAD_REQUEST' ? 2 : 1;
  } finally {
    // bounded: closing waits for the stores to answer, which one that is down never does (bin.ts exits after this)
    if (opened) {
      const gaveUp = new Promise((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS).unref());
      await Promise.race([opened.close().catch(() => undefined), gaveUp]);
    }
  }
}
