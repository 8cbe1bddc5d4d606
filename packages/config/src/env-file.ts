// `.env` for local commands: `npm start`, the CLI and the scripts read it when present, so a second instance on one
// machine is one file (its own ports, database, Redis prefix) rather than variables exported by hand in each terminal.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from './config-error.ts';

/**
 * Adds the variables of `.env` in the current directory (or of the file TIDINGS_ENV_FILE names) to `env`, before
 * loadConfig reads it; a variable already set wins, as with `node --env-file`. Returns the file read, or undefined
 * when there is none. A TIDINGS_ENV_FILE that does not exist is a ConfigError (a typo would otherwise go unnoticed).
 * @example loadEnvFile(); const config = loadConfig();
 */
export function loadEnvFile(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string | undefined {
  const file = path.resolve(cwd, env.TIDINGS_ENV_FILE || '.env');
  if (!existsSync(file)) {
    if (env.TIDINGS_ENV_FILE) throw new ConfigError(`Invalid configuration:\n  TIDINGS_ENV_FILE: ${file} does not exist`);
    return undefined;
  }
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (env[name] === undefined) env[name] = value;
  }
  return file;
}
