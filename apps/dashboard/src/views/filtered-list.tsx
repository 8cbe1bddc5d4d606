/**
 * The address of a list page at `base` with the filters that are set (empty ones left out), and `extra` (a cursor).
 * @example listUrl('/contacts', { q: 'ada', subscribed: '' }, { cursor }) // '/contacts?q=ada&cursor=...'
 */
export function listUrl(base: string, filters: Record<string, string>, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams(Object.entries({ ...filters, ...extra }).filter(([, value]) => value !== '')).toString();
  return search ? `${base}?${search}` : base;
}

/**
 * The paging links of a filtered, keyset-paged list: back to the newest, and on to older items, keeping the filters.
 * @example <PageLinks base="/contacts" filters={filters} page={page} cursor={cursor} label="Older contacts" />
 */
export function PageLinks({
  base,
  filters,
  page,
  cursor,
  label,
}: {
  base: string;
  filters: Record<string, string>;
  page: { hasMore: boolean; nextCursor: string | null };
  cursor?: string;
  label: string;
}) {
  if (!cursor && !page.hasMore) return null;
  return (
    <div class="actions page-actions">
      {cursor && <a href={listUrl(base, filters)}>← Newest</a>}
      {page.hasMore && (
        <a href={listUrl(base, filters, { cursor: page.nextCursor! })} role="button" class="secondary outline">
          {label}
        </a>
      )}
    </div>
  );
}
