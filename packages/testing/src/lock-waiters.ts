/**
 * Statements of `db`'s database waiting on a lock: how a test sees that the work it holds back with a lock of its
 * own (a row `FOR UPDATE`, a `LOCK TABLE`) has reached the database.
 * @example await waitFor(async () => (await lockWaiters(deps.db)) > 0, 5_000, 'the claim to wait on the lock');
 */
export async function lockWaiters(db: { $queryRawUnsafe<T>(query: string): Promise<T> }): Promise<number> {
  const [row] = await db.$queryRawUnsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  return row!.n;
}
