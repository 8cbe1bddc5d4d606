/**
 * Polls `check` until it returns a truthy value (and returns it), or fails after `timeoutMs` naming `what`.
 * @example const row = await waitFor(() => db.message.findFirst({ where: { status: 'sent' } }), 5_000, 'a sent message');
 */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Statements of `db`'s database waiting on a lock: how a test sees that the work it holds back with a lock of its
 * own (a row `FOR UPDATE`, a `LOCK TABLE`) has reached the database.
 * @example await waitFor(async () => (await lockWaiters(deps.db)) > 0, 5_000, 'the claim to wait on the lock');
 */
export async function lockWaiters(db: { $queryRawUnsafe<T>(query: string): Promise<T> }): Promise<number> {
  const [row] = await db.$queryRawUnsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  return row!.n;
}
