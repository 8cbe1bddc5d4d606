import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Config } from '@tidings/config';
import { allowLiveKeys, createOrganization, createUser, listApiKeys, openDeps, setApiKeyEnabled, setInstallOperator, type Role } from '@tidings/core';
import { migrate } from '@tidings/db';

export const usage = `usage:
  tidings migrate
  tidings orgs create --name <name> [--test] [--env]
  tidings orgs allow-live <orgId>
  tidings users create --org <orgId> --email <email> [--password <password>] [--role owner|operator|member]
  tidings users grant-operator --email <email>
  tidings users revoke-operator --email <email>
  tidings keys list --org <orgId>
  tidings keys disable --org <orgId> --key <keyId>
  tidings keys enable --org <orgId> --key <keyId>
  tidings help | --help | -h`;

/** `tidings help`, or `--help` / `-h` anywhere: the usage on stdout and exit 0 (asked for, not a mistake). */
export const isHelpRequest = (argv: string[]) => argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');

/** A mistake in the command line: the usage is printed and the exit code is 2. */
export class UsageError extends Error {}

type Output = { out: (line: string) => void; err: (line: string) => void };

function options(args: string[], spec: Record<string, { type: 'string' | 'boolean' }>, required: string[]) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const name of required) {
    if (typeof values[name] !== 'string' || values[name] === '') throw new UsageError(`--${name} is required`);
  }
  return values;
}

/**
 * Runs one `tidings` command and returns its exit code. JSON results go to `out`, progress and errors to `err`.
 * @example process.exitCode = await runCli(['orgs', 'create', '--name', 'Acme'], loadConfig(), console);
 */
export async function runCli(argv: string[], config: Config, io: Output = { out: console.log, err: console.error }): Promise<number> {
  const [group, action, ...rest] = argv;
  if (isHelpRequest(argv)) {
    io.out(usage);
    return 0;
  }
  try {
    if (group === 'migrate' && action === undefined) {
      io.err('applying migrations...');
      const { applied } = await migrate(config.databaseUrl);
      io.err(applied.length ? `applied ${applied.length}: ${applied.join(', ')}` : 'database is up to date');
      return 0;
    }
    const deps = openDeps(config, 'cli');
    try {
      if (group === 'orgs' && action === 'create') {
        const values = options(rest, { name: { type: 'string' }, test: { type: 'boolean' }, env: { type: 'boolean' } }, ['name']);
        const result = await createOrganization(deps, { name: String(values.name), mode: values.test ? 'test' : 'live' });
        // --env: shell assignments, so `export $(tidings orgs create ... --env)` leaves the id and key in the shell
        if (values.env) io.out(`TIDINGS_ORG_ID=${result.organization.id}\nTIDINGS_API_KEY=${result.apiKey.key}`);
        else io.out(JSON.stringify(result, null, 2));
        return 0;
      }
      if (group === 'orgs' && action === 'allow-live') {
        // an organization created with --test gets live keys from the dashboard and the API only after this
        if (rest.length !== 1 || rest[0]!.startsWith('-')) throw new UsageError('orgs allow-live takes one organization id');
        io.out(JSON.stringify(await allowLiveKeys(deps, rest[0]!), null, 2));
        return 0;
      }
      if (group === 'users' && action === 'create') {
        const spec = { org: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } } as const;
        const values = options(rest, spec, ['org', 'email']);
        const role = values.role === undefined ? undefined : String(values.role);
        if (role !== undefined && !['owner', 'operator', 'member'].includes(role)) throw new UsageError('--role must be owner, operator or member');
        // Without --password one is generated and printed once, so it never has to sit in shell history.
        const generated = values.password === undefined ? randomBytes(15).toString('base64url') : undefined;
        const password = String(values.password ?? generated);
        const result = await createUser(deps, { orgId: String(values.org), email: String(values.email), password, role: role as Role | undefined });
        io.out(JSON.stringify({ ...result, ...(generated && result.isNewUser ? { password: generated } : {}) }, null, 2));
        return 0;
      }
      if (group === 'users' && (action === 'grant-operator' || action === 'revoke-operator')) {
        // install operators see every organization's queued jobs (Bull Board): granted here only, never by a role
        const values = options(rest, { email: { type: 'string' } }, ['email']);
        io.out(JSON.stringify(await setInstallOperator(deps, String(values.email), action === 'grant-operator'), null, 2));
        return 0;
      }
      if (group === 'keys' && action === 'list') {
        const values = options(rest, { org: { type: 'string' } }, ['org']);
        const keys = [];
        let cursor: string | undefined;
        do {
          const page = await listApiKeys(deps, String(values.org), 'live', { limit: 100, offset: 0, cursor });
          keys.push(...page.data);
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        io.out(JSON.stringify({ data: keys }, null, 2));
        return 0;
      }
      if (group === 'keys' && (action === 'disable' || action === 'enable')) {
        const values = options(rest, { org: { type: 'string' }, key: { type: 'string' } }, ['org', 'key']);
        const key = await setApiKeyEnabled(deps, String(values.org), 'live', String(values.key), action === 'enable');
        io.out(JSON.stringify(key, null, 2));
        return 0;
      }
      throw new UsageError(argv.length ? `unknown command: ${argv.join(' ')}` : 'no command given');
    } finally {
      await deps.close();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n${usage}`);
      return 2;
    }
    io.err(`error: ${(error as Error).message}`);
    return 1;
  }
}
