import type { Message, MessageHistoryStatus } from '@tidings/contracts';
import { Table } from './list.tsx';
import { Time } from './render.tsx';

const FAILED: MessageHistoryStatus[] = ['failed', 'bounced', 'undelivered', 'complained'];
const DONE: MessageHistoryStatus[] = ['sent', 'delivered', 'received', 'opened', 'clicked'];

/** The colour family of a status: done (green), failed (red), or on its way / canceled (neutral). */
function toneOf(status: MessageHistoryStatus): string {
  if (DONE.includes(status)) return 'ok';
  if (FAILED.includes(status)) return 'bad';
  return status === 'canceled' ? 'off' : 'pending';
}

/** A message status as a coloured badge. */
export function StatusBadge({ status }: { status: MessageHistoryStatus }) {
  return <span class={`badge status-${toneOf(status)}`}>{status}</span>;
}

/** `Email` or `SMS`, marked `inbound` for a message someone sent to the organization. */
export function ChannelLabel({ message }: { message: Pick<Message, 'channelType' | 'direction'> }) {
  const channel = message.channelType === 'email' ? 'Email' : 'SMS';
  return (
    <span class="channel">
      {channel}
      {message.direction === 'inbound' && <span class="badge inbound"> inbound</span>}
    </span>
  );
}

/** One line that tells messages apart in a table: the subject of an email, the start of an SMS. */
export function summaryOf(message: Message): string {
  const text = message.channelType === 'email' ? message.subject || '(no subject)' : message.body || '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * An email's HTML in a frame that can run nothing: `sandbox` gives it an opaque origin and no scripts, forms or top
 * navigation, and `srcdoc` is an attribute, so the HTML is escaped like any other. Its links open in a new tab, as a
 * mail client's do (popups only: the page's policy would refuse them inside the frame).
 */
export function EmailFrame({ html, title }: { html: string; title: string }) {
  return (
    <iframe class="email-frame" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc={`<base target="_blank">${html}`} title={title} referrerpolicy="no-referrer"></iframe>
  );
}

const sizeOf = (bytes: number | null) => (bytes === null ? 'fetched at send time' : bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);

/**
 * An email's copies, reply-to and attachments (each a download link when `downloadBase` is given), or an MMS's media;
 * nothing for a message without them.
 */
export function MessageExtras({ message, downloadBase }: { message: Message; downloadBase?: string }) {
  const lists: [string, string[]][] = [
    ['Cc', message.cc],
    ['Bcc', message.bcc],
    ['Reply-To', message.replyTo],
    ['Media', message.mediaUrls],
  ];
  const shown = lists.filter(([, values]) => values.length > 0);
  if (shown.length === 0 && message.attachments.length === 0) return null;
  return (
    <div class="message-extras">
      {shown.length > 0 && (
        <dl class="mail-headers">
          {shown.map(([label, values]) => (
            <>
              <dt>{label}</dt>
              <dd>{values.join(', ')}</dd>
            </>
          ))}
        </dl>
      )}
      {message.attachments.length > 0 && (
        <ul class="attachments" aria-label="Attachments">
          {message.attachments.map((a) => (
            <li data-attachment-id={a.id}>
              {downloadBase && a.size !== null ? <a href={`${downloadBase}/${a.id}`}>{a.filename}</a> : a.filename}{' '}
              <small class="muted">
                {a.contentType} · {sizeOf(a.size)}
                {a.contentId ? ` · inline (cid:${a.contentId})` : ''}
              </small>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What was sent, as the recipient would see it: the HTML (framed) and the text part of an email, or the SMS. */
export function MessageContent({ message, downloadBase }: { message: Message; downloadBase?: string }) {
  if (message.channelType === 'sms') {
    return (
      <div class="sms-thread">
        <MessageExtras message={message} />
        <p class="sms-bubble">{message.body}</p>
        <small class="muted">
          {message.segments ?? 1} segment{message.segments === 1 ? '' : 's'} · from {message.from}
        </small>
      </div>
    );
  }
  return (
    <>
      <MessageExtras message={message} downloadBase={downloadBase} />
      {message.html ? <EmailFrame html={message.html} title={`HTML of “${message.subject ?? ''}”`} /> : <p class="muted">This email has no HTML part.</p>}
      <h3 class="part-heading">Text part</h3>
      {message.text ? <pre class="text-part">{message.text}</pre> : <p class="muted">This email has no text part.</p>}
    </>
  );
}

/**
 * Messages newest first, each linking to `${linkBase}/${id}`; the provider column only where it tells rows apart.
 */
export function MessagesTable({ messages, linkBase, showProvider }: { messages: Message[]; linkBase: string; showProvider?: boolean }) {
  return (
    <Table headers={['To', 'Message', 'Channel', 'Status', !!showProvider && 'Provider', 'Created']} class="striped messages">
      {messages.map((message) => (
        <tr data-message-id={message.id}>
          <td class="name address">{message.direction === 'inbound' ? `from ${message.from}` : message.to}</td>
          <td class="summary">
            <a href={`${linkBase}/${message.id}`}>{summaryOf(message)}</a>
            {message.error && (
              <small class="failure-reason" title={`${message.error.code}: ${message.error.message}`}>
                {message.error.message}
              </small>
            )}
            {message.tags.length > 0 && <small class="tags">{message.tags.join(' · ')}</small>}
          </td>
          <td>
            <ChannelLabel message={message} />
          </td>
          <td>
            <StatusBadge status={message.status} />
          </td>
          {showProvider && <td class="muted">{message.provider}</td>}
          <td>
            <Time at={message.createdAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
