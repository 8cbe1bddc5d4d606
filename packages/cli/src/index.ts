export { runCli, usage, UsageError } from './cli.ts';
