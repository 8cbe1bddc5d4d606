import {
  createTemplate,
  listEmailDomains,
  listMessagesJson,
  listPhoneNumbers,
  listSegments,
  listSuppressions,
  listTemplates,
  listTopics,
  listWebhooks,
  newId,
} from '@tidings/core';
import { createTestDeps, makeOrganization, testDatabaseUrl, waitFor } from '@tidings/testing';
import pg from 'pg';
import { sendLoad, startRig, waitUntil } from '../faults/rig.ts';
import { expectNothingLostOrDoubled, report, waitUntilSettled } from '../faults/settle.ts';
import { startPgBouncer, startReplica } from './servers.ts';

/** Emails sent through PgBouncer: REPLICA_MESSAGES (CI runs a small number). */
const MESSAGES = Number(process.env.REPLICA_MESSAGES || 2000);
/** The statement timeout PgBouncer's connect_query gives every server connection. */
const STATEMENT_TIMEOUT_MS = 3000;

const { adminUrl, url: databaseUrl } = testDatabaseUrl();
let replica: Awaited<ReturnType<typeof startReplica>>;
let bouncer: Awaited<ReturnType<typeof startPgBouncer>>;

beforeAll(async () => {
  replica = await startReplica(adminUrl);
  bouncer = await startPgBouncer(databaseUrl, { statementTimeoutMs: STATEMENT_TIMEOUT_MS, poolSize: 20 });
}, 300_000);

afterAll(async () => {
  await Promise.allSettled([bouncer?.remove(), replica?.remove()]);
});

/** One statement on the replica itself (not through the apps). */
async function onReplica<Row extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: replica.urlOf(databaseUrl) });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Index and table scans of the Message partitions the replica itself ran: only reads sent to it move them. */
const messageScansOnReplica = async () =>
  Number(
    (await onReplica<{ scans: string }>(`SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::text AS scans FROM pg_stat_user_tables WHERE relname LIKE 'Message%'`))[0]!
      .scans,
  );
/** Transactions that failed on the replica: a write sent to it would be one (a standby refuses writes). */
const rollbacksOnReplica = async () =>
  Number((await onReplica<{ n: string }>('SELECT xact_rollback::text AS n FROM pg_stat_database WHERE datname = $1', [new URL(databaseUrl).pathname.slice(1)]))[0]!.n);

/** How long ago the replica replayed its last transaction, for an error message. */
const replayDelay = async () =>
  `${JSON.stringify(
    await onReplica(`SELECT now() - pg_last_xact_replay_timestamp() AS "replayDelay", pg_is_wal_replay_paused() AS "paused", (SELECT status FROM pg_stat_wal_receiver) AS "receiver",
      (SELECT json_agg(json_build_object('state', state, 'wait', wait_event, 'query', left(query, 80))) FROM pg_stat_activity WHERE backend_type = 'client backend' OR backend_type = 'startup') AS "activity"`),
  )}\n${replica.log()}`;

const pooled = () => ({
  DATABASE_URL: bouncer.url,
  DATABASE_PREPARED_STATEMENTS: 'false',
  DATABASE_READ_URL: replica.urlOf(databaseUrl),
  DATABASE_READ_MAX_LAG_MS: '5000',
});

it('reads that may lag go to the replica, the rest to the primary through PgBouncer, whose statement timeout holds', async () => {
  const deps = createTestDeps(pooled());
  try {
    await waitFor(() => deps.reads.states()[0]?.usable, 30_000, 'the replica checked');
    expect(await deps.reads.run((db) => db.$queryRaw`SELECT pg_is_in_recovery() AS "recovery"`)).toEqual([{ recovery: true }]);
    expect(await deps.db.$queryRaw`SELECT pg_is_in_recovery() AS "recovery"`).toEqual([{ recovery: false }]);
    const org = await makeOrganization(deps, { mode: 'live' });
    const scans = await messageScansOnReplica();
    await listMessagesJson(deps, org.orgId, { limit: 20, offset: 0 });
    // a backend reports its counters within seconds, not at once
    await waitFor(async () => (await messageScansOnReplica()) > scans, 30_000, "the list's scans on the replica");
    const metrics = await deps.metrics.registry.metrics();
    expect(metrics).toMatch(/tidings_db_reads_total\{target="replica"\} 2/);
    expect(metrics).toMatch(/tidings_db_replica_usable\{replica="127\.0\.0\.1:5433\/\w+"\} 1/);
    // the apps send no session SET through the pooler: the timeout comes with every server connection
    const sleeps = Array.from({ length: 4 }, () => deps.db.$queryRaw`SELECT pg_sleep(${(STATEMENT_TIMEOUT_MS + 2000) / 1000})`);
    for (const sleep of sleeps) await expect(sleep).rejects.toThrow(/statement timeout/);
  } finally {
    await deps.close();
  }
});

it('leaves a replica that lags past DATABASE_READ_MAX_LAG_MS for the primary, and comes back once it has caught up', async () => {
  const deps = createTestDeps({ ...pooled(), DATABASE_READ_MAX_LAG_MS: '1000' });
  const recovery = () => deps.reads.run((db) => db.$queryRaw<{ recovery: boolean }[]>`SELECT pg_is_in_recovery() AS "recovery"`).then(([row]) => row!.recovery);
  try {
    await waitFor(() => deps.reads.states()[0]?.usable, 30_000, 'the replica checked');
    expect(await recovery()).toBe(true);
    await onReplica('SELECT pg_wal_replay_pause()');
    // the primary moves on while the replica replays nothing
    await makeOrganization(deps, { mode: 'live' });
    await waitFor(() => !deps.reads.states()[0]!.usable, 30_000, 'the replica left for lagging');
    expect(deps.reads.states()[0]!.lagMs).toBeGreaterThan(1000);
    expect(await recovery()).toBe(false);
    expect(await deps.metrics.registry.metrics()).toMatch(/tidings_db_reads_total\{target="primary",reason="unavailable"\} 1/);
    await onReplica('SELECT pg_wal_replay_resume()');
    await waitFor(() => deps.reads.states()[0]!.usable, 30_000, 'the replica back');
    expect(await recovery()).toBe(true);
  } finally {
    await onReplica('SELECT pg_wal_replay_resume()').catch(() => {});
    await deps.close();
  }
});

it('the other lists (templates, webhooks, suppressions, topics, segments, numbers, domains) are served by the replica', async () => {
  const deps = createTestDeps({ ...pooled(), DATABASE_READ_MAX_LAG_MS: '600000' });
  try {
    await waitFor(() => deps.reads.states()[0]?.usable, 30_000, 'the replica checked');
    const { orgId } = await makeOrganization(deps, { mode: 'live' });
    const page = { limit: 100, offset: 0 };
    const lists = {
      templates: () => listTemplates(deps, orgId, { ...page, includeDeleted: false }),
      webhooks: () => listWebhooks(deps, orgId, page),
      suppressions: () => listSuppressions(deps, orgId, page),
      topics: () => listTopics(deps, orgId, page),
      segments: () => listSegments(deps, orgId, page),
      phoneNumbers: () => listPhoneNumbers(deps, orgId, page),
      emailDomains: () => listEmailDomains(deps, orgId, page),
    };
    const sizes = async () => Object.fromEntries(await Promise.all(Object.entries(lists).map(async ([name, list]) => [name, (await list()).data.length])));
    const each = (n: number) => Object.fromEntries(Object.keys(lists).map((name) => [name, n]));
    // replay stops: what the primary takes now is not on the replica, so a list that misses it was read there
    await onReplica('SELECT pg_wal_replay_pause()');
    await createTemplate(deps, orgId, { name: 'Welcome', channelType: 'sms', body: 'Hello' });
    await deps.db.webhook.create({ data: { id: newId('whk'), orgId, url: 'https://example.com/hook', secretCiphertext: 'x', events: ['message.sent'] } });
    await deps.db.suppression.create({ data: { orgId, recipient: 'gone@example.com', reason: 'manual' } });
    await deps.db.topic.create({ data: { id: newId('top'), orgId, name: 'News', defaultSubscription: 'opt_out' } });
    await deps.db.segment.create({ data: { id: newId('seg'), orgId, name: 'All', criteria: {} } });
    await deps.db.phoneNumber.create({ data: { id: newId('pn'), orgId, number: '+15550001111', isDefault: true, type: 'local', provider: 'telnyx' } });
    await deps.db.emailDomain.create({ data: { id: newId('dom'), orgId, name: 'replica.test', status: 'verified', provider: 'resend', records: [] } });
    expect(await sizes()).toEqual(each(0));
    await onReplica('SELECT pg_wal_replay_resume()');
    await waitFor(async () => JSON.stringify(await sizes()) === JSON.stringify(each(1)), 30_000, 'the lists once the replica replayed the rows');
  } finally {
    await onReplica('SELECT pg_wal_replay_resume()').catch(() => {});
    await deps.close();
  }
});

it(`sends and drains ${MESSAGES} emails through PgBouncer with nothing lost or doubled; lists leave a stopped replica for the primary and come back`, async () => {
  const rig = await startRig({ env: pooled() });
  const statuses = new Map<number, number>();
  let listing = true;
  let lists = 0;
  const lister = (async () => {
    while (listing) {
      const response = await fetch(`${rig.apiUrl}/v1/messages?limit=20`, { headers: { authorization: `Bearer ${rig.org.key}` } });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      lists += 1;
    }
  })();
  try {
    let accepted = 0;
    const load = sendLoad(rig, MESSAGES, { onProgress: (n) => (accepted = n) });
    await waitUntil(
      () => accepted >= MESSAGES * 0.2,
      600_000,
      () => 'a fifth of the load',
    );
    const rollbacks = await rollbacksOnReplica();
    const scans = await messageScansOnReplica();
    await waitUntil(
      async () => (await messageScansOnReplica()) >= scans + 10,
      60_000,
      async () => `lists on the replica (${await replayDelay()})\n${rig.logs()}`,
    );
    expect(await rollbacksOnReplica()).toBe(rollbacks);

    await replica.stop();
    const listsBefore = lists;
    await waitUntil(
      () => lists >= listsBefore + 50,
      120_000,
      () => 'lists while the replica is stopped',
    );
    await replica.start();
    const rollbacksAfter = await rollbacksOnReplica();
    const scansAfter = await messageScansOnReplica();
    await waitUntil(
      async () => (await messageScansOnReplica()) >= scansAfter + 10,
      60_000,
      async () => `lists back on the replica (${await replayDelay()})\n${rig.logs()}`,
    );

    const sent = await load;
    listing = false;
    await lister;
    expect([...statuses.keys()]).toEqual([200]);
    expect(await rollbacksOnReplica()).toBe(rollbacksAfter);
    const settleSeconds = await waitUntilSettled(rig, 90_000 + MESSAGES * 100);
    const verdict = await expectNothingLostOrDoubled(rig, sent, MESSAGES);
    report('through PgBouncer, lists from a replica stopped and started', MESSAGES, sent, settleSeconds, verdict);
    console.log(`message.list: ${lists} pages, all 200`);
  } finally {
    listing = false;
    await lister.catch(() => {});
    await rig.close();
  }
});
