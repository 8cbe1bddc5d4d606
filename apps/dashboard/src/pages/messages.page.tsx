import { MessageListQuery, MessageStatus, type MessageWithEvents } from '@tidings/contracts';
import { EVENT_OF_STATUS, getMessage, getMessageSource, listMessages, withInlineImages } from '@tidings/core';
import type { Context } from 'hono';
import { allowEmailStyles } from '../csp.ts';
import type { DashEnv } from '../env.ts';
import { Facts, type Fact } from '../views/facts.tsx';
import { Layout } from '../views/layout.tsx';
import { EmptyState, Table } from '../views/list.tsx';
import { ChannelLabel, MessageContent, MessagesTable, StatusBadge } from '../views/message-views.tsx';
import { formatTime, render, Time } from '../views/render.tsx';
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

/** This page's URL with the filters that are set, and `extra` (the cursor). */
function listUrl(filters: Filters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(Object.entries({ ...filters, ...extra }).filter(([, value]) => value !== ''));
  const search = params.toString();
  return search ? `${BASE}?${search}` : BASE;
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
    <Layout c={c} title="Messages">
      <hgroup class="page-title">
        <h1>Messages</h1>
        <p>Every email and SMS sent by {c.var.signedIn!.membership.orgName}, newest first. Open one for its content and status history.</p>
      </hgroup>
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
        {cursor && <a href={listUrl(filters)}>← Newest</a>}
        {page?.hasMore && (
          <a href={listUrl(filters, { cursor: page.nextCursor! })} role="button" class="secondary outline">
            Older messages
          </a>
        )}
      </nav>
    </Layout>,
    page ? 200 : 400,
  );
}

/** What is known about a message; empty values are left out. */
function MessageFacts({ message }: { message: MessageWithEvents }) {
  const facts: Fact[] = [
    ['Status', <StatusBadge status={message.status} />],
    ['Channel', <ChannelLabel message={message} />],
    ['From', message.from],
    ['To', message.to],
    ['Provider', message.provider],
    ['Provider’s id', message.providerMessageId && <code>{message.providerMessageId}</code>],
    ['Created', <Time at={message.createdAt} />],
    ['Scheduled for', message.scheduledAt && <Time at={message.scheduledAt} />],
    ['Sent', message.sentAt && <Time at={message.sentAt} />],
    ['Delivered', message.deliveredAt && <Time at={message.deliveredAt} />],
    ['Failed', message.failedAt && <Time at={message.failedAt} />],
    ['Opened', message.openedAt && <Time at={message.openedAt} />],
    ['First click', message.clickedAt && <Time at={message.clickedAt} />],
    ['Error', message.error && `${message.error.code}: ${message.error.message}`],
    ['Attempts', message.attempts],
    ['Segments', message.segments],
    ['Template', message.templateId && `${message.templateId} (version ${message.templateVersion})`],
    ['Contact', message.contactId],
    ['Tags', message.tags.length > 0 && message.tags.join(', ')],
    ['Metadata', Object.keys(message.metadata).length > 0 && <code>{JSON.stringify(message.metadata)}</code>],
  ];
  return <Facts facts={facts} />;
}

function StatusHistory({ message }: { message: MessageWithEvents }) {
  return (
    <Table headers={['Status', 'At', 'Webhook event', 'Detail']} class="striped history">
      {message.events.map((event) => (
        <tr>
          <td>
            <StatusBadge status={event.status} />
          </td>
          <td>
            <time datetime={event.createdAt} title={`${event.createdAt} (UTC)`}>
              {formatTime(event.createdAt)}:{String(new Date(event.createdAt).getUTCSeconds()).padStart(2, '0')}
            </time>
          </td>
          <td>{EVENT_OF_STATUS[event.status] ? <code>{EVENT_OF_STATUS[event.status]}</code> : <span class="muted">none</span>}</td>
          <td class="break">{event.error ? `${event.error.code}: ${event.error.message}` : (event.link ?? '')}</td>
        </tr>
      ))}
    </Table>
  );
}

/** Opens and clicks of an email, from its history (Tidings' own tracking and the provider's, each counted once). */
function Engagement({ message }: { message: MessageWithEvents }) {
  const opens = message.events.filter((event) => event.status === 'opened').length;
  const clicks = new Map<string, number>();
  for (const event of message.events) if (event.status === 'clicked' && event.link) clicks.set(event.link, (clicks.get(event.link) ?? 0) + 1);
  return (
    <section class="card" aria-labelledby="engagement-title" id="engagement">
      <h2 id="engagement-title">Opens and clicks</h2>
      <dl class="counts">
        <div data-count="opens">
          <dt>Opens</dt>
          <dd>{opens}</dd>
        </div>
        <div data-count="clicks">
          <dt>Clicks</dt>
          <dd>{[...clicks.values()].reduce((sum, n) => sum + n, 0)}</dd>
        </div>
      </dl>
      {clicks.size > 0 && (
        <Table headers={['Link', 'Clicks']}>
          {[...clicks].map(([link, count]) => (
            <tr data-link={link}>
              <td class="break">{link}</td>
              <td>{count}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
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
    <Layout c={c} title={title}>
      <a href={BASE} class="back">
        ← Messages
      </a>
      <hgroup class="page-title">
        <h1>{title}</h1>
        <p>
          <code>{message.id}</code>
          {message.provider === 'sandbox' && (
            <>
              {' '}
              · <a href={`/sandbox/${message.id}`}>in the sandbox inbox</a>
            </>
          )}
        </p>
      </hgroup>
      <div class="message-grid">
        <section class="card" aria-labelledby="facts-title">
          <h2 id="facts-title">Details</h2>
          <MessageFacts message={message} />
        </section>
        <section class="card" aria-labelledby="content-title">
          <h2 id="content-title">Content</h2>
          <MessageContent message={{ ...message, html: await withInlineImages(c.var.deps, orgOf(c), message) }} />
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
    </Layout>,
  );
}

const routes = pageRoutes().get('/', listPage).get('/:id', detailPage);

/** Messages: the organization's messages with filters and keyset pages, and one message with its status history. */
export const messagesPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Messages', href: BASE, section: 'main' },
  routes,
};
