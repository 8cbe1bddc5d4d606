/**
 * Runs `work` with a time limit: its value, or `{ ok: false }` when it throws or is still running after `ms` (it is
 * then left to settle on its own). For look-ups at Postgres or Redis that must not hang the caller while a store is
 * down: ioredis queues commands until it reconnects, so a plain await would wait for as long as Redis is away.
 * @example const result = await within(() => redis.ping(), 2000); if (!result.ok) ...
 */
export async function within<T>(work: () => Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ ok: false }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false }), ms);
  });
  const attempt = work().then(
    (value) => ({ ok: true as const, value }),
    () => ({ ok: false as const }), // the caller learns only that it failed; what failed is the store's own log's to say
  );
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
