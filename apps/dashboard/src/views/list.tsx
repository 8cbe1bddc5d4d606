import type { Child } from 'hono/jsx';

type TableProps = {
  /** Column headings; a `false` one is a column this table leaves out. */
  headers: (string | false)[];
  /** Adds an unnamed last column for each row's buttons. */
  hasActions?: boolean;
  class?: string;
  /** The rows. */
  children?: Child;
};

/**
 * A table that scrolls sideways on narrow screens; striped unless `class` says otherwise.
 * @example <Table headers={['Name', 'Created']} hasActions>{items.map((item) => <tr>...</tr>)}</Table>
 */
export function Table({ headers, hasActions, class: className = 'striped', children }: TableProps) {
  return (
    <div class="table-wrap">
      <table class={className}>
        <thead>
          <tr>
            {headers
              .filter((header) => header !== false)
              .map((header) => (
                <th>{header}</th>
              ))}
            {hasActions && <th aria-label="Actions"></th>}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * What a list shows before it has anything: a heading, then what to do about it.
 * @example <EmptyState title="No domains yet"><p>Add one above.</p></EmptyState>
 */
export function EmptyState({ title, children }: { title: string; children?: Child }) {
  return (
    <article class="empty-state">
      <h3>{title}</h3>
      {children}
    </article>
  );
}

/**
 * The link to the next (older) page of a keyset-paged list at `base`, when there is one.
 * @example <OlderLink base="/webhooks" page={page} label="Older endpoints" />
 */
export function OlderLink({ base, page, label }: { base: string; page: { hasMore: boolean; nextCursor: string | null }; label: string }) {
  if (!page.hasMore) return null;
  return (
    <a href={`${base}?cursor=${encodeURIComponent(page.nextCursor!)}`} role="button" class="secondary outline">
      {label}
    </a>
  );
}

type PagedListProps = {
  /** Where the list lives: the older link keeps it. */
  base: string;
  page: { data: unknown[]; hasMore: boolean; nextCursor: string | null };
  /** What the list shows before it has anything: a heading, then what to do about it. */
  empty: { title: string; hint: Child };
  /** The older link's label ("Older endpoints"). */
  olderLabel: string;
  /** The table of the page's items, shown when there is one. */
  children?: Child;
};

/**
 * One page of a keyset-paged list: its table, or what to do while it is empty, then the link to older items.
 * @example <PagedList base="/webhooks" page={page} empty={{ title: 'No endpoints yet', hint: <p>Add one above.</p> }} olderLabel="Older endpoints"><WebhooksTable webhooks={page.data} /></PagedList>
 */
export function PagedList({ base, page, empty, olderLabel, children }: PagedListProps) {
  return (
    <>
      {page.data.length === 0 ? <EmptyState title={empty.title}>{empty.hint}</EmptyState> : children}
      <OlderLink base={base} page={page} label={olderLabel} />
    </>
  );
}
