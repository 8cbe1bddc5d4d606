import { closeDb, type createDb, type Db, pgPoolOf } from './client.ts';

/** Where a read that may lag ran, and why the primary ran it: no replica within the lag bound, or the one tried failed. */
export type ReadChoice = { target: 'replica' } | { target: 'primary'; reason: 'unavailable' | 'failed' };

/** One replica as the last check found it: its lag behind the primary (ms; null while it does not answer). */
export type ReplicaState = { name: string; lagMs: number | null; usable: boolean };

/**
 * Reads that may lag behind the last write (lists, exports, counts): a streaming replica serves them while it is
 * within the lag bound and answers, the primary otherwise.
 */
export type Reads = {
  /**
   * Runs `read` on a usable replica (in turn), or on the primary when none is. A replica that fails it is left until
   * its next check says it answers again, and the primary runs `read`: a replica going away fails no request.
   */
  run<T>(read: (db: Db) => Promise<T>): Promise<T>;
  /** Each replica as last checked, for the metrics. */
  states(): ReplicaState[];
  close(): Promise<void>;
};

type Replica = ReplicaState & { db: Db };
type LsnSample = { at: number; lsn: bigint };

/** A check waits this long for an answer: a busy server may take a while, and reads keep the last state meanwhile. */
const CHECK_TIMEOUT_MS = 5000;

/** Samples of the primary's WAL position kept (one per check): past them a replica's lag is only known to be larger. */
const MAX_SAMPLES = 300;

/** `16/B374D848` (a pg_lsn) as a number, to compare positions. */
const lsnValue = (text: string) => {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

/** A replica's name in metrics and logs: host, port and database, never the user or password. */
const replicaName = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
};

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Opens a pool on each replica URL (made like the primary's by `openDb`) and checks them every `checkIntervalMs`
 * (one statement on the primary and one per replica): the lag is how long ago the primary was at a WAL position the
 * replica has not replayed yet, so a replica cut off from the primary is seen lagging too, not only a slow one.
 * Without URLs every read runs on the primary and nothing is checked.
 * @example const reads = createReads(db, { urls: config.databaseReads.urls, maxLagMs: 5000, openDb: (url) => createDb({ databaseUrl: url }) });
 */
export function createReads(
  primary: Db,
  options: { urls: string[]; maxLagMs: number; openDb(url: string): ReturnType<typeof createDb>; checkIntervalMs?: number; onRead?(choice: ReadChoice): void },
): Reads {
  if (options.urls.length === 0) return { run: (read) => read(primary), states: () => [], close: async () => {} };
  const replicas: Replica[] = options.urls.map((url) => ({ name: replicaName(url), db: options.openDb(url), lagMs: null, usable: false }));
  const interval = options.checkIntervalMs ?? 1000;
  const samples: LsnSample[] = [];
  let next = 0;
  let checking: Promise<void> | null = null;

  const lagOf = (replayed: bigint, now: number) => {
    // the oldest moment the primary had already written past what the replica has replayed
    const behind = samples.find((sample) => sample.lsn > replayed);
    return behind ? now - behind.at : 0;
  };
  const checkReplica = async (replica: Replica) => {
    try {
      const { rows } = await within(
        pgPoolOf(replica.db).query<{ recovery: boolean; lsn: string | null }>('SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn'),
        CHECK_TIMEOUT_MS,
      );
      const [{ recovery, lsn }] = rows;
      replica.lagMs = recovery && lsn ? lagOf(lsnValue(lsn), Date.now()) : 0;
      replica.usable = replica.lagMs <= options.maxLagMs;
    } catch {
      replica.lagMs = null;
      replica.usable = false;
    }
  };
  const check = async () => {
    try {
      const { rows } = await within(pgPoolOf(primary).query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'), CHECK_TIMEOUT_MS);
      samples.push({ at: Date.now(), lsn: lsnValue(rows[0].lsn) });
      if (samples.length > MAX_SAMPLES) samples.shift();
    } catch {
      // the primary did not answer: the replicas are measured against the positions already sampled
    }
    await Promise.all(replicas.map(checkReplica));
  };
  const tick = () => {
    checking ??= check().finally(() => {
      checking = null;
    });
  };
  const timer = setInterval(tick, interval);
  timer.unref();
  tick();

  return {
    async run(read) {
      const usable = replicas.filter((replica) => replica.usable);
      if (usable.length === 0) {
        options.onRead?.({ target: 'primary', reason: 'unavailable' });
        return read(primary);
      }
      const replica = usable[next++ % usable.length];
      try {
        const result = await read(replica.db);
        options.onRead?.({ target: 'replica' });
        return result;
      } catch {
        replica.usable = false;
        options.onRead?.({ target: 'primary', reason: 'failed' });
        return read(primary);
      }
    },
    states: () => replicas.map(({ name, lagMs, usable }) => ({ name, lagMs, usable })),
    async close() {
      clearInterval(timer);
      await checking;
      await Promise.all(replicas.map((replica) => closeDb(replica.db)));
    },
  };
}
