export { helpFor, runCli } from './cli.ts';
export { globalUsage, UsageError, type Command } from './command.ts';
export { commands } from './commands/index.ts';
