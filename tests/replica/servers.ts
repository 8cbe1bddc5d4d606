import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@tidings/testing';
import pg from 'pg';

const run = promisify(execFile);

/** The streaming replica's and PgBouncer's ports (fixed: run one replica suite at a time). */
export const REPLICA_PORT = 5433;
export const PGBOUNCER_PORT = 6432;
/**
 * The replica's replication slot on the primary: it keeps the WAL the replica has not received yet (while it is
 * stopped, or slow to start on a busy machine); without it the primary may recycle that WAL and the replica never
 * catches up. Dropped with the replica: a slot left behind would keep WAL on the primary forever.
 */
const SLOT = 'tidings_test_replica';

/** Runs a command as the postgres user (root switches to it; the postgres user runs it as it is). */
async function asPostgres(command: string, args: string[]): Promise<string> {
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const { stdout } = await run(file, argv, { timeout: 300_000 });
  return stdout;
}

/** A directory the postgres user owns, for a server's files. */
function postgresDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o700);
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  return dir;
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user on this machine');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Debian's server binaries of the running major version (`/usr/lib/postgresql/<major>/bin`). */
async function postgresBin(adminUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>("SELECT current_setting('server_version_num') AS version");
    const major = String(Math.floor(Number(rows[0]!.version) / 10_000));
    if (!readdirSync('/usr/lib/postgresql').includes(major)) throw new Error(`no /usr/lib/postgresql/${major}`);
    return `/usr/lib/postgresql/${major}/bin`;
  } finally {
    await client.end();
  }
}

/**
 * Lets 127.0.0.1 stream from the primary: a `replication` line in its pg_hba.conf when none is there, then a reload
 * (never a restart: other clients keep their connections).
 */
async function allowReplication(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ hba_file: string }>('SHOW hba_file');
    const hbaFile = rows[0]!.hba_file;
    const lines = readFileSync(hbaFile, 'utf8').split('\n');
    if (!lines.some((line) => /^host\s+replication\s+\S+\s+127\.0\.0\.1\/32\s/.test(line))) {
      writeFileSync(hbaFile, `${lines.join('\n').trimEnd()}\nhost replication all 127.0.0.1/32 trust\n`);
      await client.query('SELECT pg_reload_conf()');
    }
  } finally {
    await client.end();
  }
}

/** Drops the replica's slot on the primary when it is there and no replica streams from it. */
async function dropSlot(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active', [SLOT]);
  } finally {
    await client.end();
  }
}

/** Whether a statement at `url` succeeds now. */
export const answers = async (url: string) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
};

/** `url` with another port. */
export function onPort(url: string, port: number): string {
  const moved = new URL(url);
  moved.port = String(port);
  return moved.toString();
}

/**
 * A streaming replica of the primary at `adminUrl` on 127.0.0.1:5433: `pg_basebackup` into a temporary directory,
 * run with `pg_ctl` as the postgres user. `stop()` and `start()` take it away and bring it back mid-test; `remove()`
 * stops it and deletes its files.
 */
export async function startReplica(adminUrl: string) {
  await allowReplication(adminUrl);
  await dropSlot(adminUrl); // left by a run that was killed
  const bin = await postgresBin(adminUrl);
  const dir = postgresDir('tidings-replica-');
  const data = path.join(dir, 'data');
  const primary = new URL(adminUrl);
  await asPostgres(`${bin}/pg_basebackup`, [
    '-h',
    primary.hostname,
    '-p',
    primary.port || '5432',
    '-U',
    'postgres',
    '-D',
    data,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
    '-C',
    '-S',
    SLOT,
  ]);
  // Debian keeps the primary's postgresql.conf and pg_hba.conf outside its data directory: the replica gets its own
  writeFileSync(
    path.join(data, 'postgresql.conf'),
    [
      `port = ${REPLICA_PORT}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'max_connections = 200',
      'hot_standby = on',
      'hot_standby_feedback = on',
      'ssl = off',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  const replicaUrl = onPort(adminUrl, REPLICA_PORT);
  const start = async () => {
    await asPostgres(`${bin}/pg_ctl`, ['-D', data, '-l', path.join(dir, 'replica.log'), '-w', '-t', '120', 'start']);
    if (!(await waitFor(() => answers(replicaUrl), 60_000).catch(() => false)))
      throw new Error(`the replica did not start:\n${readFileSync(path.join(dir, 'replica.log'), 'utf8').slice(-2000)}`);
  };
  const stop = () => asPostgres(`${bin}/pg_ctl`, ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();
  return {
    /** The replica's URL for a database of the primary. */
    urlOf: (databaseUrl: string) => onPort(databaseUrl, REPLICA_PORT),
    start,
    stop,
    /** The end of the replica's server log, for an error message. */
    log: () => readFileSync(path.join(dir, 'replica.log'), 'utf8').slice(-3000),
    async remove() {
      await stop().catch(() => {}); // already stopped
      await dropSlot(adminUrl);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * PgBouncer (Debian's 1.18) on 127.0.0.1:6432 in transaction mode in front of the primary, as the postgres user with
 * its own ini and auth file in a temporary directory. Each server connection gets the settings the apps cannot send
 * through it (`connect_query`): no JIT and `statementTimeoutMs`. `server`: where it finds Postgres when not at
 * `databaseUrl`'s host and port (a TCP proxy that a test cuts, as a restart of the primary would).
 */
export async function startPgBouncer(databaseUrl: string, options: { statementTimeoutMs: number; poolSize: number; server?: { host: string; port: number } }) {
  const dir = postgresDir('tidings-pgbouncer-');
  const primary = new URL(databaseUrl);
  const database = primary.pathname.slice(1);
  const server = options.server ?? { host: primary.hostname, port: Number(primary.port || 5432) };
  const ini = path.join(dir, 'pgbouncer.ini');
  const connectQuery = `SET jit = off; SET statement_timeout = ${options.statementTimeoutMs}`;
  writeFileSync(
    ini,
    [
      '[databases]',
      `${database} = host=${server.host} port=${server.port} dbname=${database} connect_query='${connectQuery}'`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${PGBOUNCER_PORT}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize}`,
      'max_client_conn = 1000',
      // as documented: a failed server login is tried again after 1 s, not 15 (clients get errors meanwhile)
      'server_login_retry = 1',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
  if (process.getuid?.() === 0) for (const file of ['pgbouncer.ini', 'userlist.txt']) chownSync(path.join(dir, file), postgresIds().uid, postgresIds().gid);
  await asPostgres('pgbouncer', ['-d', ini]);
  const url = onPort(databaseUrl, PGBOUNCER_PORT);
  if (!(await waitFor(() => answers(url), 30_000).catch(() => false)))
    throw new Error(`PgBouncer did not start:\n${readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8').slice(-2000)}`);
  return {
    url,
    /** Stops it (SIGTERM to the pid it wrote) and deletes its files. */
    async remove() {
      const pid = Number(readFileSync(path.join(dir, 'pgbouncer.pid'), 'utf8').trim());
      if (pid > 0) {
        process.kill(pid, 'SIGTERM');
        await waitFor(() => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        }, 30_000).catch(() => {});
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
