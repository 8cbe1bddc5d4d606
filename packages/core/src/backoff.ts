/**
 * Exponential backoff with jitter: attempt n waits between half and all of `baseMs * 2^(n-1)`, capped at `maxMs`,
 * so many messages failing together do not come back together.
 * @example backoffDelayMs(3, { baseMs: 2000, maxMs: 600000 }) // between 4000 and 8000
 */
export function backoffDelayMs(attempt: number, options: { baseMs: number; maxMs: number }, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
