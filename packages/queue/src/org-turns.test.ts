import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { takeTurnAgain, takeTurns } from './org-turns.ts';
import { createRedis, type Redis } from './redis.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis;
let queue: Queue;
let prefix: string;

beforeEach(() => {
  redis = createRedis(redisUrl);
  prefix = `turns-test-${process.pid}-${Date.now()}`;
  queue = new Queue('email', { connection: redis, prefix });
});

afterEach(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

/** Adds one job per organization named, taking their turns as the enqueue does. */
async function add(orgIds: string[]): Promise<void> {
  const priorities = await takeTurns(redis, queue, orgIds);
  await queue.addBulk(orgIds.map((orgId, i) => ({ name: 'send', data: { orgId }, opts: { jobId: `${orgId}-${Math.random()}`, priority: priorities[i] } })));
}

/** The organizations of every job, in the order one worker slot takes them (their ids into `ids`, when given). */
async function served(total: number, ids: string[] = []): Promise<string[]> {
  const order: string[] = [];
  const connection = createRedis(redisUrl);
  const serve = async (job: { id?: string; data: { orgId: string } }) => {
    order.push(job.data.orgId);
    ids.push(job.id!);
  };
  const worker = new Worker(queue.name, serve, { connection, prefix, concurrency: 1 });
  const deadline = Date.now() + 20_000;
  while (order.length < total && Date.now() < deadline) await new Promise((resolve) => worker.once('completed', resolve));
  await worker.close();
  connection.disconnect();
  return order;
}

describe('turns between organizations', () => {
  it("serves another organization's later job before the rest of one organization's burst", async () => {
    await add(Array(50).fill('org_a'));
    await add(['org_b']);
    await add(Array(50).fill('org_a'));
    await add(['org_b', 'org_c']);
    const order = await served(103);
    // B's and C's first jobs right after A's first, then a turn each: A, B, A, A...
    expect(order.slice(0, 6)).toEqual(['org_a', 'org_b', 'org_c', 'org_a', 'org_b', 'org_a']);
    expect(order.filter((o) => o === 'org_a')).toHaveLength(100);
  });

  it('gives consecutive turns to one call and starts everyone again once nothing waits', async () => {
    expect(await takeTurns(redis, queue, ['org_a', 'org_b', 'org_a', 'org_a'])).toEqual([1, 1, 2, 3]);
    // nothing was added, so nothing waits: a new epoch, A's earlier turns are forgotten
    expect(await takeTurns(redis, queue, ['org_b', 'org_a'])).toEqual([1, 1]);
    await add(Array(3).fill('org_a'));
    // A's three wait at 1..3: A continues after them, B joins at the head
    expect(await takeTurns(redis, queue, ['org_a', 'org_b'])).toEqual([4, 1]);
  });

  it("puts a job that waits again behind another organization's job added while it waited", async () => {
    await add(Array(3).fill('org_a'));
    const connection = createRedis(redisUrl);
    const taker = new Worker(queue.name, null, { connection, prefix });
    const token = randomUUID();
    const first = (await taker.getNextJob(token, { block: false }))!;
    // A's first job waits again (as a parked or retried one does), then B adds one, then A's comes due
    await takeTurnAgain(redis, queue, first, 'org_a');
    await first.moveToDelayed(Date.now() + 60_000, token);
    await add(['org_b']);
    await first.promote();
    await taker.close();
    connection.disconnect();
    // before, it came back with its first turn, ahead of B's and of A's own
    const ids: string[] = [];
    expect(await served(4, ids)).toEqual(['org_a', 'org_b', 'org_a', 'org_a']);
    expect(ids[3]).toBe(first.id);
  });
});
