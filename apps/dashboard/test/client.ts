import type { Dashboard } from '../src/app.ts';

/** Form fields; a list is sent as the same name repeated (checkboxes). */
type Form = Record<string, string | string[]>;

function encode(form: Form): string {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) body.append(name, one);
  return body.toString();
}

export type PageResponse = { status: number; location: string | null; html: string; setCookies: string[]; headers: Headers };

/**
 * A tiny browser for `app.request()`: keeps cookies between requests, and reads the CSRF token of the last page.
 * @example const browser = dashboardClient(app); await browser.get('/sign-in'); await browser.post('/sign-in', { email, password });
 */
export function dashboardClient(app: Dashboard, origin = 'http://localhost') {
  const cookies = new Map<string, string>();
  let csrf = '';

  async function send(method: string, path: string, form?: Form, headers: Record<string, string> = {}): Promise<PageResponse> {
    const res = await app.request(`${origin}${path}`, {
      method,
      headers: {
        ...(cookies.size && { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') }),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
        ...headers,
      },
      body: form ? encode(form) : undefined,
    });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      const isRemoved = attributes.some((a) => /^\s*max-age=0$/i.test(a)) || value === '';
      if (isRemoved) cookies.delete(name);
      else cookies.set(name, value);
    }
    const html = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token) csrf = token;
    return { status: res.status, location: res.headers.get('location'), html, setCookies, headers: res.headers };
  }

  return {
    cookies,
    get csrf() {
      return csrf;
    },
    get: (path: string, headers?: Record<string, string>) => send('GET', path, undefined, headers),
    /** Posts a form with this browser's CSRF token unless the form names its own `_csrf`. */
    post: (path: string, form: Form = {}, headers?: Record<string, string>) => send('POST', path, { _csrf: csrf, ...form }, headers),
    send,
    /** GET the sign-in page (for a token), then sign in. */
    async signIn(email: string, password: string) {
      await send('GET', '/sign-in');
      return send('POST', '/sign-in', { _csrf: csrf, email, password, next: '/' });
    },
  };
}
