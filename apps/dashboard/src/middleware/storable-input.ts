import { unstorableText } from '@tidings/contracts';
import type { MiddlewareHandler } from 'hono';
import type { DashEnv } from '../env.ts';
import { renderError } from '../views/render.tsx';

const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)/;

/**
 * Refuses, before any page runs, input that Postgres could not store or compare (the same rule as the API's schemas:
 * NUL, lone surrogates): a path segment with it cannot be an id, so 404; a query or form field with it is a 400
 * naming the field. Pages then never hand such text to the database, where it would be a 500.
 */
export const refuseUnstorableInput: MiddlewareHandler<DashEnv> = async (c, next) => {
  let path: string;
  try {
    path = decodeURIComponent(new URL(c.req.url).pathname);
  } catch {
    return renderError(c, 404, 'Page not found', 'The address is not a valid URL.');
  }
  if (unstorableText(path)) return renderError(c, 404, 'Page not found', 'The page you asked for does not exist, or is not in this organization.');
  const fields: [string, unknown][] = Object.entries(c.req.queries()).flatMap(([name, values]) => values.map((value) => [name, value] as [string, unknown]));
  if (c.req.method === 'POST' && FORM_TYPES.test(c.req.header('content-type') ?? '')) {
    fields.push(...Object.entries(await c.req.parseBody({ all: true })).flatMap(([name, value]) => [value].flat().map((one) => [name, one] as [string, unknown])));
  }
  for (const [name, value] of fields) {
    const problem = unstorableText(name) ?? (typeof value === 'string' ? unstorableText(value) : null);
    if (problem) return renderError(c, 400, `${unstorableText(name) ? 'A field name' : name}: ${problem}`, 'Go back, correct it and try again.');
  }
  return next();
};
