import { createTestDeps, makeOrganization } from '@tidings/testing';
import { getBroadcast, newId } from '../src/index.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

/** What the counts must be: a GROUP BY over the broadcast's messages (what broadcast.get read before). */
async function truth(broadcastId: string) {
  const rows = await deps.db.$queryRaw<{ status: string; count: number; opened: number; clicked: number }[]>`
    SELECT "status"::text AS "status", count(*)::int AS "count", count("openedAt")::int AS "opened", count("clickedAt")::int AS "clicked"
    FROM "Message" WHERE "broadcastId" = ${broadcastId} GROUP BY "status"`;
  const count = (...statuses: string[]) => rows.filter((r) => statuses.includes(r.status)).reduce((sum, r) => sum + r.count, 0);
  return {
    queued: count('scheduled', 'queued', 'sending'),
    sent: count('sent'),
    delivered: count('delivered'),
    failed: count('failed', 'undelivered'),
    bounced: count('bounced'),
    opened: rows.reduce((sum, r) => sum + r.opened, 0),
    clicked: rows.reduce((sum, r) => sum + r.clicked, 0),
  };
}

async function expectExact(orgId: string, broadcastId: string, expected: Partial<Awaited<ReturnType<typeof truth>>>) {
  const { counts } = await getBroadcast(deps, orgId, broadcastId);
  const actual = await truth(broadcastId);
  expect(counts).toMatchObject(actual);
  expect(counts).toMatchObject(expected);
}

async function broadcastOf(orgId: string) {
  return deps.db.broadcast.create({
    data: { id: newId('brd'), orgId, name: 'x', channelType: 'email', templateId: 'tpl_x', mode: 'live', status: 'sending', startedAt: new Date() },
  });
}

const message = (orgId: string, broadcastId: string | null, contactId: string, status: 'queued' | 'failed' = 'queued') => ({
  id: newId('msg'),
  orgId,
  channelType: 'email' as const,
  to: `${contactId}@example.com`,
  from: 'news@example.com',
  provider: 'sandbox',
  status,
  broadcastId,
  contactId,
});

describe('broadcast.get counts kept by triggers on Message', () => {
  it('stay exact through inserts, duplicates, retries, rollbacks, concurrent sessions and engagement, and outlive deleted messages', async () => {
    const { orgId } = await makeOrganization(deps);
    const b = await broadcastOf(orgId);
    const other = await broadcastOf(orgId);
    const contacts = Array.from({ length: 40 }, (_, i) => `con_${b.id}_${i}`);

    // one statement of 40 (a fan-out chunk), 5 of them failed, with a message of another broadcast and one of none
    await deps.db.message.createMany({
      data: [...contacts.map((c, i) => message(orgId, b.id, c, i < 5 ? 'failed' : 'queued')), message(orgId, other.id, 'con_other'), message(orgId, null, 'con_none')],
    });
    await expectExact(orgId, b.id, { queued: 35, failed: 5 });
    await expectExact(orgId, other.id, { queued: 1 });

    // the chunk written again (a retry, a duplicate job): rows skipped by ON CONFLICT are not counted
    const written = await deps.db.message.findMany({ where: { broadcastId: b.id } });
    const inserted = await deps.db.$executeRaw`
      INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "provider", "status", "broadcastId", "contactId", "createdAt", "updatedAt")
      SELECT u.*, now() FROM unnest(${written.map((m) => m.id)}::text[], ${written.map((m) => m.orgId)}::text[],
        ${written.map(() => 'email')}::"ChannelType"[], ${written.map((m) => m.to)}::text[], ${written.map((m) => m.from)}::text[],
        ${written.map((m) => m.provider)}::text[], ${written.map((m) => m.status)}::"MessageStatus"[], ${written.map((m) => m.broadcastId)}::text[],
        ${written.map((m) => m.contactId)}::text[], ${written.map((m) => m.createdAt)}::timestamp[]) u
      ON CONFLICT DO NOTHING`;
    expect(inserted).toBe(0);
    await expectExact(orgId, b.id, { queued: 35, failed: 5 });

    // a send that rolls back changes nothing
    await expect(
      deps.db.$transaction(async (tx) => {
        await tx.message.updateMany({ where: { broadcastId: b.id, status: 'queued' }, data: { status: 'sent' } });
        throw new Error('provider call failed');
      }),
    ).rejects.toThrow('provider call failed');
    await expectExact(orgId, b.id, { queued: 35, sent: 0 });

    // 35 sends at once on as many sessions as the pool has (each adds to its own shard); then each again with the
    // same status (a retried finish): no change
    const queued = await deps.db.message.findMany({ where: { broadcastId: b.id, status: 'queued' }, select: { id: true } });
    await Promise.all(
      queued.map((m) =>
        deps.db.$transaction([
          deps.db.message.update({ where: { id: m.id }, data: { status: 'sending' } }),
          deps.db.message.update({ where: { id: m.id }, data: { status: 'sent' } }),
        ]),
      ),
    );
    await Promise.all(queued.map((m) => deps.db.message.update({ where: { id: m.id }, data: { status: 'sent' } })));
    await expectExact(orgId, b.id, { queued: 0, sent: 35, failed: 5 });
    const shards = await deps.db.broadcastMessageCount.findMany({ where: { broadcastId: b.id, status: 'sent' }, distinct: ['shard'] });
    expect(shards.length).toBeGreaterThan(1);

    // outcomes and engagement: 20 delivered, 10 of them opened, 4 clicked; 3 bounced; opened twice counts once
    const sent = queued.map((m) => m.id);
    await deps.db.message.updateMany({ where: { id: { in: sent.slice(0, 20) } }, data: { status: 'delivered' } });
    await deps.db.message.updateMany({ where: { id: { in: sent.slice(20, 23) } }, data: { status: 'bounced' } });
    await deps.db.message.updateMany({ where: { id: { in: sent.slice(0, 10) } }, data: { openedAt: new Date() } });
    await deps.db.message.updateMany({ where: { id: { in: sent.slice(0, 10) } }, data: { openedAt: new Date() } });
    await deps.db.message.updateMany({ where: { id: { in: sent.slice(0, 4) } }, data: { clickedAt: new Date() } });
    await expectExact(orgId, b.id, { sent: 12, delivered: 20, bounced: 3, opened: 10, clicked: 4 });

    // messages removed by retention leave the counts as they were: a broadcast's figures never shrink with age
    await deps.db.message.deleteMany({ where: { id: { in: sent.slice(0, 2) } } });
    expect((await getBroadcast(deps, orgId, b.id)).counts).toMatchObject({ sent: 12, delivered: 20, bounced: 3, opened: 10, clicked: 4 });
    await expectExact(orgId, other.id, { queued: 1 });
  });

  it('another organization’s broadcast is not found', async () => {
    const { orgId } = await makeOrganization(deps);
    const stranger = await makeOrganization(deps);
    const b = await broadcastOf(orgId);
    await expect(getBroadcast(deps, stranger.orgId, b.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
