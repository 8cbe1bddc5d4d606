import { MessageListQuery, MessageStatus } from '@tidings/contracts';
import { getMessage, getMessageSource, listMessages, sentHtml } from '@tidings/core';
import type { Context } from 'hono';
import { allowEmailStyles } from '../csp.ts';
import type { DashEnv } from '../env.ts';
import { listUrl } from '../views/filtered-list.tsx';
import { EmptyState } from '../views/list.tsx';
import { Engagement, MessageFacts, StatusHistory } from '../views/message-detail.tsx';
import { MessageContent, MessagesTable } from '../views/message-views.tsx';
import { DetailPage, TitledPage } from '../views/page-shell.tsx';
import { render } from '../views/render.tsx';
import { attachmentDownload } from './attachment-download.ts';
import { orgOf, PAGE_SIZE, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/messages';
const DAY_MS = 86_400_000;

type Env = Context<DashEnv>;

/** The form's names for message.list's fields, for its error messages. */
const FIELD_LABELS: Record<string, string> = {
  status: 'Status',
  channelType: 'Channel',
  to: 'Recipient',
  tag: 'Tag',
  createdAfter: 'Created from',
  createdBefore: 'Created to',
  cursor: 'Page',
};
/** The filter form as typed; dates are `YYYY-MM-DD` (UTC days, both ends included). */
type Filters = { status: string; channelType: string; to: string; tag: string; since: string; until: string };

function readFilters(c: Env): Filters {
  const q = (name: string) => (c.req.query(name) ?? '').trim();
  return { status: q('status'), channelType: q('channelType'), to: q('to'), tag: q('tag'), since: q('since'), until: q('until') };
}

/** A `YYYY-MM-DD` day as a time `offsetMs` after its start, or undefined for an empty field. */
function dayAt(day: string, offsetMs: number): string | undefined {
  if (!day) return undefined;
  const start = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
  return Number.isNaN(start) ? 'not a date' : new Date(start + offsetMs).toISOString();
}

/** The form's filters as message.list's query; the same schema as the API, so the same rules. */
function toListQuery(filters: Filters, cursor: string | undefined) {
  return MessageListQuery.safeParse({
    limit: PAGE_SIZE,
    cursor,
    status: filters.status || undefined,
    channelType: filters.channelType || undefined,
    to: filters.to || undefined,
    tag: filters.tag || undefined,
    // createdAfter and createdBefore are exclusive: from the first millisecond of `since` to the last of `until`
    createdAfter: dayAt(filters.since, -1),
    createdBefore: dayAt(filters.until, DAY_MS),
  });
}

function FilterForm({ filters }: { filters: Filters }) {
  return (
    <form method="get" action={BASE} class="card filters" role="search" aria-label="Filter messages">
      <label>
        Status
        <select name="status">
          <option value="">Any status</option>
          {MessageStatus.options.map((status) => (
            <option value={status} selected={filters.status === status}>
              {status}
            </option>
          ))}
        </select>
      </label>
      <label>
        Channel
        <select name="channelType">
          <option value="">Any channel</option>
          <option value="email" selected={filters.channelType === 'email'}>
            Email
          </option>
          <option value="sms" selected={filters.channelType === 'sms'}>
            SMS
          </option>
        </select>
      </label>
      <label class="grow">
        Recipient
        <input name="to" value={filters.to} placeholder="exact address or number" maxlength={320} />
      </label>
      <label>
        Tag
        <input name="tag" value={filters.tag} placeholder="exact tag" maxlength={100} />
      </label>
      <label>
        Created from
        <input type="date" name="since" value={filters.since} />
      </label>
      <label>
        to
        <input type="date" name="until" value={filters.until} />
      </label>
      <div class="filter-actions">
        <button type="submit">Filter</button>
        <a href={BASE} role="button" class="secondary outline">
          Clear
        </a>
      </div>
    </form>
  );
}

function NoMessages({ c, isFiltered }: { c: Env; isFiltered: boolean }) {
  if (isFiltered) {
    return (
      <EmptyState title="No messages match these filters">
        <p>The recipient must be the exact address or number. Widen the dates, or clear the filters.</p>
        <a href={BASE} role="button" class="secondary outline">
          Clear filters
        </a>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No messages yet">
      <p>Send one through the API with a key from Settings › API Keys; it shows up here with its delivery status.</p>
      <pre class="commands">
        <code>{`curl -X POST ${c.var.deps.config.publicApiUrl}/v1/messages -H "Authorization: Bearer sk_test_..." \\
  -H 'Content-Type: application/json' \\
  -d '{"channelType":"email","to":"ada@example.com","subject":"Hello","html":"<p>Hi Ada</p>"}'`}</code>
      </pre>
    </EmptyState>
  );
}

async function listPage(c: Env) {
  const { orgId } = c.var.signedIn!.membership;
  const filters = readFilters(c);
  const cursor = c.req.query('cursor') || undefined;
  const query = toListQuery(filters, cursor);
  const page = query.success ? await listMessages(c.var.deps, orgId, query.data) : null;
  const isFiltered = Object.values(filters).some((value) => value !== '');
  return render(
    c,
    <TitledPage
      c={c}
      title="Messages"
      showsNotice={false}
      intro={`Every email and SMS sent by ${c.var.signedIn!.membership.orgName}, newest first. Open one for its content and status history.`}
    >
      <FilterForm filters={filters} />
      {!page ? (
        <p class="form-error" role="alert">
          These filters cannot be used: {query.error?.issues.map((issue) => `${FIELD_LABELS[String(issue.path[0])] ?? 'Filters'}: ${issue.message}`).join('; ')}.
        </p>
      ) : page.data.length === 0 ? (
        <NoMessages c={c} isFiltered={isFiltered || !!cursor} />
      ) : (
        <MessagesTable messages={page.data} linkBase={BASE} showProvider />
      )}
      <nav class="pager" aria-label="Pages">
        {cursor && <a href={listUrl(BASE, filters)}>← Newest</a>}
        {page?.hasMore && (
          <a href={listUrl(BASE, filters, { cursor: page.nextCursor! })} role="button" class="secondary outline">
            Older messages
          </a>
        )}
      </nav>
    </TitledPage>,
    page ? 200 : 400,
  );
}

async function detailPage(c: Env) {
  const message = await getMessage(c.var.deps, orgOf(c), c.req.param('id')!);
  const title = message.channelType === 'email' ? message.subject || '(no subject)' : `SMS to ${message.to}`;
  // an outbound email's RFC 5322 source, as message.getSource answers it
  const source = message.channelType === 'email' && message.direction === 'outbound' ? (await getMessageSource(c.var.deps, orgOf(c), message.id)).toString('utf8') : null;
  if (message.html) allowEmailStyles(c);
  return render(
    c,
    <DetailPage
      c={c}
      title={title}
      showsNotice={false}
      back={{ href: BASE, label: 'Messages' }}
      subtitle={
        <>
          <code>{message.id}</code>
          {message.provider === 'sandbox' && (
            <>
              {' '}
              · <a href={`/sandbox/${message.id}`}>in the sandbox inbox</a>
            </>
          )}
        </>
      }
    >
      <div class="message-grid">
        <section class="card" aria-labelledby="facts-title">
          <h2 id="facts-title">Details</h2>
          <MessageFacts message={message} />
        </section>
        <section class="card" aria-labelledby="content-title">
          <h2 id="content-title">Content</h2>
          <MessageContent message={{ ...message, html: await sentHtml(c.var.deps, orgOf(c), message) }} downloadBase={`${BASE}/${message.id}/attachments`} />
        </section>
      </div>
      {message.channelType === 'email' && message.direction === 'outbound' && <Engagement message={message} />}
      {source !== null && (
        <details class="card email-source">
          <summary>Source</summary>
          <pre>{source}</pre>
        </details>
      )}
      <h2 class="section-heading">Status history</h2>
      <StatusHistory message={message} />
    </DetailPage>,
  );
}

const routes = pageRoutes()
  .get('/', listPage)
  .get('/:id', detailPage)
  .get('/:id/attachments/:attachmentId', attachmentDownload({ sandboxOnly: false }));

/** Messages: the organization's messages with filters and keyset pages, and one message with its status history. */
export const messagesPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Messages', href: BASE, section: 'main' },
  routes,
};
