// What a `tidings` command is, and the reading of a command line against them. Nothing heavy is imported here: help
// and usage errors answer without loading the domain code, the database client or a queue.
import { parseArgs } from 'node:util';
import type { Config } from '@tidings/config';
import type { Deps } from '@tidings/core';

export type Option = {
  type: 'string' | 'boolean';
  description: string;
  required?: boolean;
  /** The allowed values of a string option. */
  choices?: readonly string[];
  /** The value's name in the usage (`--org <orgId>`); the option's own name by default. */
  placeholder?: string;
};

export type Values = Record<string, string | boolean | undefined>;

/** The connections and domain functions a command uses, opened on first use (`migrate` and help need none). */
export type Opened = { deps: Deps; core: typeof import('@tidings/core') };

export type CommandContext = {
  config: Config;
  /** Results (JSON, or what `--env` asks for). */
  out(text: string): void;
  /** Progress and errors. */
  err(text: string): void;
  open(): Promise<Opened>;
};

export type Command = {
  /** The words that name it: `orgs suspend`. */
  name: string;
  /** Its positional arguments, by name (`orgId`). */
  args?: readonly string[];
  summary: string;
  options?: Record<string, Option>;
  /** Returns the exit code: 0 done, 1 failed (the error was printed). */
  run(ctx: CommandContext, values: Values, args: string[]): Promise<number>;
};

/** A mistake in the command line: the usage is printed and the exit code is 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage to print with it: the command's, or the whole list. */
    readonly usage: string,
  ) {
    super(message);
  }
}

/** `tidings help`, or `--help` / `-h` anywhere: the usage on stdout and exit 0 (asked for, not a mistake). */
export const isHelpRequest = (argv: string[]) => argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');

/** One line of a command's usage: `tidings keys create --org <orgId> --name <name> [--mode live|test]`. */
export function synopsis(command: Command): string {
  const parts = [`tidings ${command.name}`, ...(command.args ?? []).map((arg) => `<${arg}>`)];
  for (const [name, option] of Object.entries(command.options ?? {})) parts.push(option.required ? flag(name, option) : `[${flag(name, option)}]`);
  return parts.join(' ');
}

/** Every command, one line each: `tidings --help`. */
export function globalUsage(commands: readonly Command[]): string {
  return [
    'usage:',
    ...commands.map((command) => `  ${synopsis(command)}`),
    '  tidings help | --help | -h',
    '',
    'Run `tidings <command> --help` (e.g. `tidings keys create --help`) for what a command does and its options.',
  ].join('\n');
}

/** `--org <orgId>`, `--mode live|test`, `--test`: an option as the usage shows it. */
function flag(name: string, option: Option): string {
  if (option.type === 'boolean') return `--${name}`;
  return `--${name} ${option.choices ? option.choices.join('|') : `<${option.placeholder ?? name}>`}`;
}

/** `text` in lines of at most `width` characters, each after `indent`. */
function wrap(text: string, width = 100, indent = ''): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width - indent.length) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, indent + line].join('\n');
}

/** One command's usage, what it does and its options: `tidings keys create --help`. */
export function commandUsage(command: Command): string {
  const options = Object.entries(command.options ?? {});
  const width = Math.max(0, ...options.map(([name, option]) => flag(name, option).length));
  const lines = [`usage: ${synopsis(command)}`, '', wrap(command.summary)];
  if (options.length) {
    lines.push('', 'options:');
    for (const [name, option] of options) lines.push(`  ${flag(name, option).padEnd(width)}  ${option.description}`);
  }
  return lines.join('\n');
}

/** The commands of a group (`orgs`), for `tidings orgs --help`. */
export function groupUsage(commands: readonly Command[], group: string): string | undefined {
  const members = commands.filter((command) => command.name.split(' ')[0] === group);
  if (members.length === 0) return undefined;
  return ['usage:', ...members.map((command) => `  ${synopsis(command)}`, ''), ...members.map((command) => `${command.name}:\n${wrap(command.summary, 100, '  ')}`)].join('\n');
}

/** The command named by the first words of `argv`, and the words after its name. */
export function findCommand(commands: readonly Command[], argv: string[]): { command: Command; rest: string[] } | undefined {
  const command = commands.find((candidate) => candidate.name.split(' ').every((word, i) => argv[i] === word));
  return command && { command, rest: argv.slice(command.name.split(' ').length) };
}

/** parseArgs's mistake in our words: Node's own message for an unknown option explains `--` escaping, not the mistake. */
function argumentMistake(error: Error & { code?: string }): string {
  const option = /'(-{1,2}[^']*)'/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  return error.message;
}

/**
 * Reads a command's arguments: its options (unknown ones refused), the number of positional arguments, the required
 * options and the allowed values. Throws UsageError naming what is wrong.
 * @example const { values, args } = parseCommand(command, ['--org', 'org_1', '--name', 'CI']);
 */
export function parseCommand(command: Command, rest: string[]): { values: Values; args: string[] } {
  const usage = commandUsage(command);
  const spec = Object.fromEntries(Object.entries(command.options ?? {}).map(([name, option]) => [name, { type: option.type }]));
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: spec, strict: true, allowPositionals: true }) as { values: Values; positionals: string[] };
  } catch (error) {
    throw new UsageError(argumentMistake(error as Error & { code?: string }), usage);
  }
  const expected = command.args ?? [];
  if (parsed.positionals.length !== expected.length) {
    const wanted = expected.length ? expected.map((arg) => `<${arg}>`).join(' ') : 'no arguments';
    throw new UsageError(`${command.name} takes ${wanted}`, usage);
  }
  for (const [name, option] of Object.entries(command.options ?? {})) {
    const value = parsed.values[name];
    if (option.required && (typeof value !== 'string' || value === '')) throw new UsageError(`--${name} is required`, usage);
    if (option.choices && typeof value === 'string' && !option.choices.includes(value)) {
      throw new UsageError(`--${name} must be ${option.choices.slice(0, -1).join(', ')} or ${option.choices.at(-1)}`, usage);
    }
  }
  return { values: parsed.values, args: parsed.positionals };
}

/** A command's JSON result, indented for reading. */
export const json = (value: unknown) => JSON.stringify(value, null, 2);
