import { getOpenApiMetadata } from '@asteasolutions/zod-to-openapi';
import { z } from './z.ts';

export const ErrorCode = z.enum([
  'UNAUTHORIZED',
  'FORBIDDEN',
  'BAD_REQUEST',
  'NOT_FOUND',
  'CONFLICT',
  'TOO_MANY_REQUESTS',
  'INTERNAL_SERVER_ERROR',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z
  .object({
    code: ErrorCode,
    message: z.string().openapi({ example: 'name: Too small: expected string to have >=1 characters' }),
  })
  .openapi('Error');
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An ISO-8601 UTC timestamp as the API returns it. */
export const Timestamp = z.iso.datetime().openapi({ example: '2026-11-23T08:00:00.000Z' });

/**
 * `limit`, `offset` and `cursor`, shared by every list operation. Strict, like every query: an unknown parameter
 * (`?stauts=failed`) is a 400 naming it, never a silently unfiltered list.
 */
export const ListQuery = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Items per page, 1..100.' }),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0).openapi({ description: 'Items to skip. Not together with `cursor`.' }),
    cursor: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: 'The `nextCursor` of the previous page (keyset pagination; stable while items are added).' }),
  })
  .refine((q) => !(q.cursor && q.offset > 0), { message: 'offset and cursor cannot be used together', path: ['cursor'] });
export type ListQuery = z.infer<typeof ListQuery>;

/** The envelope of every list response; its example is built from the item's, so each list shows one. */
export function listOf<T extends z.ZodTypeAny>(item: T, name: string) {
  const itemExample = getOpenApiMetadata(item).example;
  return z
    .object({
      data: z.array(item),
      hasMore: z.boolean(),
      nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    })
    .openapi(name, itemExample === undefined ? {} : { example: { data: [itemExample], hasMore: true, nextCursor: 'eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0' } });
}

/** A path parameter `id` with its type prefix. */
export function idParam(prefix: string) {
  return z.object({
    id: z
      .string()
      .min(1)
      .max(64)
      // Postgres text cannot hold NUL: such an id is bad input, not a database error
      .refine((v) => !v.includes('\u0000'), 'must not contain the NUL character')
      .openapi({ param: { name: 'id', in: 'path' }, example: `${prefix}_01JD8Z5Q9X4N7W2M3K6P0R1T5V` }),
  });
}
