import type { Deps } from '@tidings/core';

/**
 * The most webhook attempts to `webhookId` that were in flight at one moment, from each attempt's recorded end and
 * duration: what a per-endpoint concurrency cap bounds.
 * @example expect(await mostAttemptsInFlight(deps, webhook.id)).toBeLessThanOrEqual(5);
 */
export async function mostAttemptsInFlight({ db }: Pick<Deps, 'db'>, webhookId: string): Promise<number> {
  const attempts = await db.webhookAttempt.findMany({ where: { delivery: { webhookId } }, select: { createdAt: true, durationMs: true } });
  const edges = attempts.flatMap((a) => [
    { at: a.createdAt.getTime() - a.durationMs, step: 1 },
    { at: a.createdAt.getTime(), step: -1 },
  ]);
  // an end before a start at the same instant: the slot was freed first
  edges.sort((x, y) => x.at - y.at || x.step - y.step);
  let inFlight = 0;
  let most = 0;
  for (const edge of edges) {
    inFlight += edge.step;
    most = Math.max(most, inFlight);
  }
  return most;
}
