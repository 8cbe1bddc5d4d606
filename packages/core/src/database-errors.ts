import { Prisma } from '@tidings/db';

/**
 * Whether an error means the database was too busy to start the work: Prisma's "unable to start a transaction in the
 * given time" (P2028) or "timed out fetching a connection" (P2024). Nothing was written, so a retry is safe; callers
 * answer "busy, retry" instead of a bug's 500. The database's error types stay inside core.
 * @example if (isDatabaseBusy(error)) return c.json({ ... }, 500, { 'Retry-After': '1' });
 */
export function isDatabaseBusy(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2028' || error.code === 'P2024');
}
