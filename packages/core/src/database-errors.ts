import { Prisma } from '@tidings/db';

/**
 * Whether an error means the database was too busy to start the work: Prisma's "unable to start a transaction in the
 * given time" (P2028) or "timed out fetching a connection" (P2024). Nothing was written, so a retry is safe; callers
 * answer "busy, retry" instead of a bug's 500. The database's error types stay inside core.
 * @example if (isDatabaseBusy(error)) return c.json({ ... }, 500, { 'Retry-After': '1' });
 */
/** Postgres's code for a statement it cancelled (statement_timeout). */
const QUERY_CANCELED = '57014';

/**
 * Whether an error is Postgres cancelling a statement that ran past `statement_timeout`, through pg or Prisma (which
 * carries the driver's error in `meta.driverAdapterError`, or as its cause).
 * @example if (isStatementTimeout(error)) return c.json({ code: 'SERVICE_UNAVAILABLE', ... }, 503);
 */
export function isStatementTimeout(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } }; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (e.code === QUERY_CANCELED || e.meta?.driverAdapterError?.cause?.originalCode === QUERY_CANCELED) return true;
    if ((e as { originalCode?: unknown }).originalCode === QUERY_CANCELED) return true;
    e = e.cause as typeof e;
  }
  return false;
}

export function isDatabaseBusy(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2028' || error.code === 'P2024');
}
