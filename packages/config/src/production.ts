// What `tidings doctor` checks: every setting a production install must have, and every one that is there but weak,
// found in one pass so an operator fixes them all at once rather than one failed start after another.
import { existsSync } from 'node:fs';
import { ConfigError } from './config-error.ts';
import { loadConfig } from './config.ts';

/** One thing to fix: the variable and what is wrong with it, in words that say how to fix it (`NAME: problem`). */
export type ProductionProblem = { name: string; problem: string };

const HEX_SECRET = 'Generate one with `openssl rand -hex 32`.';
const SECRETS: Record<string, string> = {
  WEBHOOK_SECRET_KEY: 'It encrypts webhook signing secrets at rest; keep it, since losing it makes them unreadable.',
  UNSUBSCRIBE_SECRET: 'It signs the unsubscribe links in broadcasts.',
};
const STRONG_SECRET_LENGTH = 32;
/** A random 32-character secret has far more distinct characters than this; a placeholder (`xxxx…`, `changeme…`) not. */
const MIN_DISTINCT_CHARACTERS = 10;
const PLACEHOLDER = /change.?me|example|secret|password|placeholder|tidings-local/i;

function weakSecret(value: string): string | undefined {
  if (value.length < STRONG_SECRET_LENGTH) return `is ${value.length} characters long; use at least ${STRONG_SECRET_LENGTH} random ones.`;
  if (new Set(value).size < MIN_DISTINCT_CHARACTERS || PLACEHOLDER.test(value)) return 'looks like a placeholder, not a random value.';
  return undefined;
}

function checkSecrets(env: Record<string, string>): ProductionProblem[] {
  const problems: ProductionProblem[] = [];
  for (const [name, purpose] of Object.entries(SECRETS)) {
    const value = env[name];
    const weakness = value === undefined ? 'is not set.' : weakSecret(value);
    if (weakness) problems.push({ name, problem: `${weakness} ${purpose} ${HEX_SECRET}` });
  }
  const [webhookKey, unsubscribeSecret] = [env.WEBHOOK_SECRET_KEY, env.UNSUBSCRIBE_SECRET];
  if (webhookKey && webhookKey === unsubscribeSecret) {
    problems.push({ name: 'UNSUBSCRIBE_SECRET', problem: `is the same value as WEBHOOK_SECRET_KEY: give each its own. ${HEX_SECRET}` });
  }
  return problems;
}

function checkDatabase(env: Record<string, string>): ProductionProblem[] {
  if (!env.DATABASE_URL) return [{ name: 'DATABASE_URL', problem: 'is not set: the apps would use the local default postgresql://postgres@127.0.0.1:5432/tidings.' }];
  if (!URL.canParse(env.DATABASE_URL)) return []; // loadConfig's own check names it
  const url = new URL(env.DATABASE_URL);
  const password = env.DATABASE_PASSWORD ?? decodeURIComponent(url.password);
  // a client certificate (sslcert) is the other way to sign in; otherwise the server must be asking for a password
  if (!password && !url.searchParams.has('sslcert')) {
    return [{ name: 'DATABASE_PASSWORD', problem: 'is not set, and DATABASE_URL has no password: give the database user one (any characters; openssl rand -hex 32).' }];
  }
  if (password && password.length < 16)
    return [{ name: 'DATABASE_PASSWORD', problem: `the database password is ${password.length} characters long; use at least 16 random ones.` }];
  return [];
}

function checkDeployment(env: Record<string, string>): ProductionProblem[] {
  const problems: ProductionProblem[] = [];
  if (env.NODE_ENV !== 'production') {
    problems.push({
      name: 'NODE_ENV',
      problem: `is ${env.NODE_ENV ? `"${env.NODE_ENV}"` : 'not set'}: production runs with NODE_ENV=production (Secure cookies, https-only webhooks).`,
    });
  }
  if (!env.REDIS_URL) problems.push({ name: 'REDIS_URL', problem: 'is not set: the apps would use the local default redis://127.0.0.1:6379.' });
  for (const name of ['PUBLIC_API_URL', 'PUBLIC_DASHBOARD_URL']) {
    const value = env[name];
    if (!value) problems.push({ name, problem: 'is not set: links and printed examples would point at localhost. Set the https:// address people reach it on.' });
    else if (URL.canParse(value) && new URL(value).protocol !== 'https:')
      problems.push({ name, problem: 'is not https://: browsers drop the Secure sign-in cookie over plain http.' });
  }
  return problems;
}

/** The command that makes a certificate for the SMTP app where compose mounts it (docs/compose.md). */
const SMTP_TLS_COMMAND =
  'mkdir -p smtp-tls && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 -subj "/CN=$SMTP_HOST" -keyout smtp-tls/key.pem -out smtp-tls/cert.pem && chmod 0644 smtp-tls/*.pem';

/** The SMTP app refuses to start in production without its certificate and key: set, and files that exist. */
function checkSmtpTls(env: Record<string, string>): ProductionProblem[] {
  const how = `Make a self-signed pair with \`${SMTP_TLS_COMMAND}\`, or point it at your own certificate.`;
  if (!env.SMTP_TLS_CERT && !env.SMTP_TLS_KEY) {
    return [{ name: 'SMTP_TLS_CERT', problem: `and SMTP_TLS_KEY are not set: the SMTP app refuses to start in production without them. ${how}` }];
  }
  return ['SMTP_TLS_CERT', 'SMTP_TLS_KEY'].flatMap((name) => {
    const value = env[name];
    if (!value) return [{ name, problem: `is not set, while ${name === 'SMTP_TLS_CERT' ? 'SMTP_TLS_KEY' : 'SMTP_TLS_CERT'} is: set both. ${how}` }];
    // PEM text is the certificate itself; anything else names a file the SMTP app reads at start
    if (value.includes('-----BEGIN') || existsSync(value)) return [];
    return [{ name, problem: `names ${value}, which does not exist: the SMTP app would exit at start. ${how}` }];
  });
}

/** The "  NAME: problem" lines of a ConfigError as problems. */
function problemsOf(error: ConfigError): ProductionProblem[] {
  return error.message
    .split('\n')
    .slice(1)
    .map((line) => /^\s*([\w.]+): (.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, name, problem]) => ({ name: name!, problem: `${problem}.` }));
}

/**
 * loadConfig's own findings as production would run it, for anything the checks above miss. loadConfig stops at the
 * first stage that fails (bad values, then what the values together lack), so the bad values are dropped and it is
 * asked again, until it finds nothing new.
 */
function configProblems(env: Record<string, string>): ProductionProblem[] {
  const found: ProductionProblem[] = [];
  let rest: Record<string, string> = { ...env, NODE_ENV: 'production' };
  for (let pass = 0; pass < 3; pass += 1) {
    try {
      loadConfig(rest);
      break;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const problems = problemsOf(error).filter((p) => !found.some((f) => f.name === p.name && f.problem === p.problem));
      if (!problems.length) break;
      found.push(...problems);
      rest = Object.fromEntries(Object.entries(rest).filter(([name]) => !problems.some((p) => p.name === name)));
    }
  }
  return found;
}

/**
 * Every missing or weak production setting of `env`, at once: the secrets (set, long, random, distinct), the
 * database's password, the SMTP app's certificate, NODE_ENV, the stores and public addresses, and every value loadConfig refuses. Empty when the
 * environment is ready for production. Values never appear in the problems.
 * @example productionProblems({ NODE_ENV: 'production' }) // [{ name: 'WEBHOOK_SECRET_KEY', problem: 'is not set. ...' }, ...]
 */
export function productionProblems(env: Record<string, string | undefined> = process.env): ProductionProblem[] {
  // an empty variable means "not set", as loadConfig reads it
  const present = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  const problems = [...checkDeployment(present), ...checkDatabase(present), ...checkSecrets(present), ...checkSmtpTls(present)];
  const named = new Set(problems.map((p) => p.name));
  return [...problems, ...configProblems(present).filter((p) => !named.has(p.name))];
}
