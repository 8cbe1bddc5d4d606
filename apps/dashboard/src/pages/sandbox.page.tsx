import { ChannelType } from '@tidings/contracts';
import { AppError, getMessage, listMessages, sentHtml } from '@tidings/core';
import type { Context } from 'hono';
import { allowEmailStyles } from '../csp.ts';
import type { DashEnv } from '../env.ts';
import { Layout } from '../views/layout.tsx';
import { EmptyState } from '../views/list.tsx';
import { MessageContent, MessagesTable, StatusBadge } from '../views/message-views.tsx';
import { TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { attachmentDownload } from './attachment-download.ts';
import { orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/sandbox';
const TABS = [
  { label: 'All', channelType: undefined },
  { label: 'Email', channelType: 'email' },
  { label: 'SMS', channelType: 'sms' },
] as const;

type Env = Context<DashEnv>;

function EmptyInbox({ c }: { c: Env }) {
  const api = `${c.var.deps.config.publicApiUrl}/v1/messages`;
  return (
    <EmptyState title="Nothing in the sandbox yet">
      <p>
        Create a key with <strong>Mode: Test</strong> in <a href="/settings/api-keys">Settings › API Keys</a>, then send with it. What it sends lands here, and the sandbox reports
        it delivered a moment later (<code>bounce@…</code> bounces, numbers ending in <code>0000</code> are undelivered).
      </p>
      <pre class="commands">
        <code>{`curl -X POST ${api} -H "Authorization: Bearer sk_test_..." \\
  -H 'Content-Type: application/json' \\
  -d '{"channelType":"email","to":"ada@example.com","subject":"Hello","html":"<p>Hi Ada</p>"}'

curl -X POST ${api} -H "Authorization: Bearer sk_test_..." \\
  -H 'Content-Type: application/json' \\
  -d '{"channelType":"sms","to":"+14155550123","body":"Your code is 123456"}'`}</code>
      </pre>
    </EmptyState>
  );
}

async function inboxPage(c: Env) {
  const channel = ChannelType.safeParse(c.req.query('channelType'));
  const channelType = channel.success ? channel.data : undefined;
  const page = await listMessages(c.var.deps, orgOf(c), { ...pageQuery(c), channelType, provider: 'sandbox' });
  const tabUrl = (type: string | undefined, cursor?: string) => {
    const params = new URLSearchParams({ ...(type && { channelType: type }), ...(cursor && { cursor }) }).toString();
    return params ? `${BASE}?${params}` : BASE;
  };
  return render(
    c,
    <TitledPage
      c={c}
      title="Sandbox inbox"
      intro={<>What test keys (and live keys, while no provider is configured) would have sent. Nothing here left this server.</>}
      showsNotice={false}
    >
      <nav class="tabs" aria-label="Channel">
        {TABS.map((tab) => (
          <a href={tabUrl(tab.channelType)} aria-current={tab.channelType === channelType ? 'page' : undefined}>
            {tab.label}
          </a>
        ))}
      </nav>
      {page.data.length === 0 ? <EmptyInbox c={c} /> : <MessagesTable messages={page.data} linkBase={BASE} />}
      {page.hasMore && (
        <nav class="pager" aria-label="Pages">
          <a href={tabUrl(channelType, page.nextCursor!)} role="button" class="secondary outline">
            Older messages
          </a>
        </nav>
      )}
    </TitledPage>,
  );
}

async function sandboxMessagePage(c: Env) {
  const message = await getMessage(c.var.deps, orgOf(c), c.req.param('id')!);
  // a message that went to a real provider is not in the sandbox; its page is /messages/:id
  if (message.provider !== 'sandbox') throw new AppError('NOT_FOUND', 'Message not found');
  const title = message.channelType === 'email' ? message.subject || '(no subject)' : `SMS to ${message.to}`;
  const showImages = c.req.query('images') === 'shown';
  if (message.html) allowEmailStyles(c, { remoteImages: showImages });
  return render(
    c,
    <Layout c={c} title={title}>
      <a href={BASE} class="back">
        ← Sandbox inbox
      </a>
      <section class="card mail" aria-label="Message">
        <h1>{title}</h1>
        <dl class="mail-headers">
          <dt>From</dt>
          <dd>{message.from}</dd>
          <dt>To</dt>
          <dd>{message.to}</dd>
          <dt>Date</dt>
          <dd>
            <Time at={message.createdAt} />
          </dd>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={message.status} /> <a href={`/messages/${message.id}`}>status history</a>
          </dd>
        </dl>
        <hr />
        {message.html && (
          <p class="muted images-note">
            {showImages ? (
              <>
                Images are shown, the open pixel included (it counts an open). <a href={`${BASE}/${message.id}`}>Hide images</a>
              </>
            ) : (
              <>
                Images from other hosts are not loaded, as in a careful mail client. <a href={`${BASE}/${message.id}?images=shown`}>Show images</a>
              </>
            )}
          </p>
        )}
        <MessageContent message={{ ...message, html: await sentHtml(c.var.deps, orgOf(c), message) }} downloadBase={`${BASE}/${message.id}/attachments`} />
      </section>
    </Layout>,
  );
}

const routes = pageRoutes()
  .get('/', inboxPage)
  .get('/:id', sandboxMessagePage)
  .get('/:id/attachments/:attachmentId', attachmentDownload({ sandboxOnly: true }));

/** The sandbox inbox: what the sandbox provider "sent", shown as the recipient would see it. */
export const sandboxPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Sandbox inbox', href: BASE, section: 'main' },
  routes,
};
