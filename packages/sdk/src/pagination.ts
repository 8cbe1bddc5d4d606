import type { OperationQuery } from './operation-types.ts';

/** One page of a list operation, as the API returns it. */
export type Page<T> = { data: T[]; hasMore: boolean; nextCursor: string | null };

/** `limit` (1..100), `offset` and `cursor`, taken by every list operation. */
export type ListParams = OperationQuery<'apiKey.list'>;

/** Query values the client can put in a URL; undefined ones are left out. */
export type QueryValue = string | number | boolean | Date | null | undefined | ReadonlyArray<string | number | boolean>;
export type QueryParams = Record<string, QueryValue>;

/**
 * The result of a list method: `await list.page()` for one page, or `for await` over it to walk every item of
 * every page by cursor (each item exactly once, even while items are being created).
 * @example
 * for await (const key of tidings.apiKeys.list({ limit: 100 })) console.log(key.id);
 * const { data, hasMore, nextCursor } = await tidings.apiKeys.list({ limit: 10 }).page();
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (query: QueryParams) => Promise<Page<T>>,
    private readonly query: QueryParams,
  ) {}

  /** The first page for the query as given (its `cursor` or `offset` included). */
  page(): Promise<Page<T>> {
    return this.fetchPage(this.query);
  }

  /** Every page in turn, following `nextCursor` until `hasMore` is false. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let query = this.query;
    for (;;) {
      const page = await this.fetchPage(query);
      yield page;
      if (!page.hasMore || !page.nextCursor) return;
      // The API refuses offset together with cursor: after the first page the cursor alone says where to go on.
      const { offset: _offset, ...rest } = query;
      query = { ...rest, cursor: page.nextCursor };
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects every item (at most `max`) into an array; for small lists. */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) {
      if (items.length >= max) break;
      items.push(item);
    }
    return items;
  }
}
