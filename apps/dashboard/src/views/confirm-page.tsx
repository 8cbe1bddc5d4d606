import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { DashEnv } from '../env.ts';
import { CsrfField, Layout } from './layout.tsx';

type ConfirmProps = {
  c: Context<DashEnv>;
  title: string;
  /** One line under the title naming what is acted on. */
  subtitle?: Child;
  /** Where the form posts. */
  action: string;
  submitLabel: string;
  isDangerous?: boolean;
  back: { href: string; label: string };
  children?: Child;
};

/**
 * A page that asks before an action (rotate, delete, release...): what will happen, the button, and a way back.
 * @example <ConfirmPage c={c} title="Delete “Acme”" action="/things/1/delete" submitLabel="Delete" isDangerous back={{ href: '/things', label: 'Things' }}>...</ConfirmPage>
 */
export function ConfirmPage({ c, title, subtitle, action, submitLabel, isDangerous, back, children }: ConfirmProps) {
  return (
    <Layout c={c} title={title}>
      <a href={back.href} class="back">
        ← {back.label}
      </a>
      <article class="confirm">
        <header>
          <h2>{title}</h2>
          {subtitle && <p class="muted">{subtitle}</p>}
        </header>
        <form method="post" action={action}>
          <CsrfField c={c} />
          {children}
          <div class="actions">
            <button type="submit" class={isDangerous ? 'danger' : ''}>
              {submitLabel}
            </button>
            <a href={back.href} role="button" class="secondary outline">
              Cancel
            </a>
          </div>
        </form>
      </article>
    </Layout>
  );
}
