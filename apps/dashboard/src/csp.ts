import type { Context } from 'hono';

// Our pages load only our own assets; Bull Board (its own page and scripts) is left out of this policy.
export const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The policy of a page that previews an email: the same, with inline styles allowed. A `srcdoc` frame inherits its
 * page's policy, and emails are styled inline; scripts stay refused (by this policy and by the frame's sandbox), and
 * remote images stay unloaded, as a careful mail client would.
 * With `remoteImages` (the reader asked to show images, as in a mail client), images from anywhere load too: the open
 * pixel among them.
 * @example allowEmailStyles(c); return render(c, <Layout ...><EmailFrame html={message.html} /></Layout>);
 */
export function allowEmailStyles(c: Context, { remoteImages = false } = {}): void {
  const policy = CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
  c.header('Content-Security-Policy', remoteImages ? policy.replace("img-src 'self' data:", "img-src 'self' data: https: http:") : policy);
}
