// `npm start` in development: the apps' JSON log lines, one readable line each (pino-pretty), in the one terminal.
// Production stays JSON: the apps write it themselves, and `npm start` with NODE_ENV=production formats nothing.
import { prettyFactory } from 'pino-pretty';

/**
 * A formatter of log lines: a pino JSON line becomes `[12:00:01] INFO (api): listening {port: 3000}` (fields on the
 * same line); any other line is kept as it is. Colours only for a terminal.
 * @example superviseApps(apps, { ..., formatLine: readableLogLines(process.stdout.isTTY) });
 */
export function readableLogLines(colorize: boolean): (line: string) => string {
  const pretty = prettyFactory({ colorize, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' });
  return (line) => (line.startsWith('{') ? pretty(line) : `${line}\n`);
}
