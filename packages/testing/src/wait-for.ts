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
