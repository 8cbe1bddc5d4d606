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

export { formatTime, Time } from './time.tsx';
