import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DashEnv } from '../env.ts';
import { Layout } from './layout.tsx';

/** Sends a rendered page. */
export function render(c: Context<DashEnv>, page: unknown, status: ContentfulStatusCode = 200) {
  return c.html(page as string, status);
}

/** A page that says what went wrong and what to do next. */
export function renderError(c: Context<DashEnv>, status: ContentfulStatusCode, title: string, hint: string) {
  return render(
    c,
    <Layout c={c} title={title}>
      <article class="error-page">
        <h1>{title}</h1>
        <p>{hint}</p>
        <a href="/" role="button" class="secondary">
          Back to the dashboard
        </a>
      </article>
    </Layout>,
    status,
  );
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Nov 23, 2026 09:05` (UTC): short enough for a table column. */
export function formatTime(at: string): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** A timestamp for tables, in UTC, with the exact time on hover. */
export function Time({ at, empty = '—' }: { at: string | null; empty?: string }) {
  if (!at) return <span class="muted">{empty}</span>;
  return (
    <time datetime={at} title={`${at} (UTC)`}>
      {formatTime(at)}
    </time>
  );
}
