import { readTrackingToken, trackingToken } from './tracking-token.ts';
import { trackHtml } from './track-html.ts';

const secret = 'test-secret-of-at-least-some-length';
const base = { messageId: 'msg_01TEST', redirectsClicks: true, publicApiUrl: 'https://api.example.com/', secret };

describe('tracking tokens', () => {
  it('reads back what it signed, and nothing else', () => {
    const click = trackingToken(secret, { kind: 'click', messageId: 'msg_1', url: 'https://example.com/a?b=1' });
    expect(readTrackingToken(secret, 'click', click)).toEqual({ kind: 'click', messageId: 'msg_1', url: 'https://example.com/a?b=1' });
    expect(readTrackingToken('another-secret', 'click', click)).toBeNull();
    const [id, , signature] = click.split('.');
    const elsewhere = `${id}.${Buffer.from('https://evil.example').toString('base64url')}.${signature}`;
    expect(readTrackingToken(secret, 'click', elsewhere)).toBeNull();
    const open = trackingToken(secret, { kind: 'open', messageId: 'msg_1' });
    expect(readTrackingToken(secret, 'open', open)).toEqual({ kind: 'open', messageId: 'msg_1' });
    // a token of one kind is not one of the other
    expect(readTrackingToken(secret, 'click', open)).toBeNull();
    expect(readTrackingToken(secret, 'open', `${open}x`)).toBeNull();
    expect(readTrackingToken(secret, 'open', 'msg_1.short')).toBeNull();
  });

  it("tells a link to show (a sandbox or test message's) from one to follow, under the same signature scheme", () => {
    const shown = trackingToken(secret, { kind: 'click', messageId: 'msg_1', url: 'https://example.com/a', showsOnly: true });
    expect(readTrackingToken(secret, 'click', shown)).toEqual({ kind: 'click', messageId: 'msg_1', url: 'https://example.com/a', showsOnly: true });
    expect(shown).not.toBe(trackingToken(secret, { kind: 'click', messageId: 'msg_1', url: 'https://example.com/a' }));
    const [href] = [...trackHtml('<a href="https://example.com/a">A</a>', { ...base, opens: false, clicks: true, redirectsClicks: false }).matchAll(/href="([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    expect(readTrackingToken(secret, 'click', href!.slice('https://api.example.com/c/'.length))).toMatchObject({ showsOnly: true });
  });
});

describe('trackHtml', () => {
  it('rewrites http(s) links and adds the pixel before </body>, leaving the rest byte for byte', () => {
    const html = '<html><body><p class=x>Hi &amp; welcome</p><a href="https://example.com/a?x=1&amp;y=2">A</a> <A HREF=\'http://example.org\'>B</A></body></html>';
    const out = trackHtml(html, { ...base, opens: true, clicks: true });
    const links = [...out.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    expect(links).toHaveLength(2);
    const urls = links.map((link) => {
      expect(link.startsWith('https://api.example.com/c/')).toBe(true);
      return readTrackingToken(secret, 'click', link.slice('https://api.example.com/c/'.length))?.url;
    });
    expect(urls).toEqual(['https://example.com/a?x=1&y=2', 'http://example.org']);
    expect(out).toMatch(/<img src="https:\/\/api\.example\.com\/o\/msg_01TEST\.[A-Za-z0-9_-]{43}" width="1" height="1"[^>]*><\/body><\/html>$/);
    expect(out.startsWith('<html><body><p class=x>Hi &amp; welcome</p><a href=')).toBe(true);
  });

  it('keeps mailto:, tel:, anchors and our own unsubscribe and preferences links', () => {
    const kept =
      '<a href="mailto:a@example.com">m</a><a href="tel:+14155550123">t</a><a href="#top">a</a>' +
      '<a href="https://api.example.com/u/con_1.brd_1.sig">u</a><a href="https://api.example.com/p/tok">p</a><a href="{{ unsubscribeUrl }}">v</a>';
    expect(trackHtml(kept, { ...base, opens: false, clicks: true })).toBe(kept);
  });

  it('adds only the pixel when clicks are off, at the end without a body, and nothing when both are off', () => {
    const html = '<p><a href="https://example.com">x</a></p>';
    const opened = trackHtml(html, { ...base, opens: true, clicks: false });
    expect(opened.startsWith(html)).toBe(true);
    expect(opened.slice(html.length)).toMatch(/^<img src="https:\/\/api\.example\.com\/o\//);
    expect(trackHtml(html, { ...base, opens: false, clicks: false })).toBe(html);
  });
});
