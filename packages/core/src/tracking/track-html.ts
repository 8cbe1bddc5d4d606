import { Parser } from 'htmlparser2';
import { trackingUrl } from './tracking-token.ts';

export type TrackingOptions = {
  opens: boolean;
  clicks: boolean;
  messageId: string;
  /** Clicks redirect (live messages from a verified domain), or show the link on a page (sandbox and test). */
  redirectsClicks: boolean;
  publicApiUrl: string;
  secret: string;
};

// Longer links stay as they are: the token carries the link, and mail clients cut very long URLs.
const MAX_TRACKED_URL_LENGTH = 2000;

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** Links of our own (unsubscribe `/u/`, preferences `/p/`, tracking `/o/` and `/c/`) keep working as they are. */
function isTrackable(href: string, ownPrefixes: string[]): boolean {
  const url = href.trim();
  if (!/^https?:\/\//i.test(url) || url.length > MAX_TRACKED_URL_LENGTH) return false;
  return !ownPrefixes.some((prefix) => url.startsWith(prefix));
}

/**
 * The html of an email with Tidings' tracking: with `opens`, a 1x1 image `{PUBLIC_API_URL}/o/{token}` before
 * `</body>` (or at the end); with `clicks`, the `href` of each `<a>`/`<area>` to an http(s) link becomes
 * `{PUBLIC_API_URL}/c/{token}`. `mailto:`, `tel:`, anchors and our own links (unsubscribe, preferences) stay. The
 * html is parsed (htmlparser2) and only those attributes are spliced in: the rest of the source is kept byte for byte.
 * @example trackHtml('<a href="https://example.com">x</a>', { opens: true, clicks: true, messageId, publicApiUrl, secret })
 */
export function trackHtml(html: string, options: TrackingOptions): string {
  if (!options.opens && !options.clicks) return html;
  const base = options.publicApiUrl.replace(/\/+$/, '');
  const ownPrefixes = ['u', 'p', 'o', 'c'].map((path) => `${base}/${path}/`);
  const edits: { start: number; end: number; text: string }[] = [];
  let tag = '';
  let bodyCloseAt: number | null = null;
  const parser = new Parser(
    {
      onopentagname(name) {
        tag = name;
      },
      onattribute(name, value) {
        if (!options.clicks || name !== 'href' || (tag !== 'a' && tag !== 'area') || !isTrackable(value, ownPrefixes)) return;
        const link = trackingUrl(base, options.secret, {
          kind: 'click',
          messageId: options.messageId,
          url: value.trim(),
          ...(options.redirectsClicks ? {} : { showsOnly: true }),
        });
        // the attribute's source is [startIndex, endIndex): its name, `=`, and its value quoted or not
        edits.push({ start: parser.startIndex, end: parser.endIndex, text: `href="${escapeAttribute(link)}"` });
      },
      onclosetag(name, isImplied) {
        if (name === 'body' && !isImplied) bodyCloseAt = parser.startIndex;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  if (options.opens) {
    const pixel = trackingUrl(base, options.secret, { kind: 'open', messageId: options.messageId });
    const at = bodyCloseAt ?? html.length;
    edits.push({ start: at, end: at, text: `<img src="${escapeAttribute(pixel)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">` });
  }
  let result = '';
  let from = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    result += html.slice(from, edit.start) + edit.text;
    from = edit.end;
  }
  return result + html.slice(from);
}
