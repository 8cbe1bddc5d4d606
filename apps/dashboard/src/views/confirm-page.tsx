import type { Context, Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { DashEnv } from '../env.ts';
import { CsrfField, Layout } from './layout.tsx';
import { render } from './render.tsx';

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

type Env = Context<DashEnv>;

/**
 * The subtitle and the way back of a confirm page about one named item (a broadcast, a template): its name, and its page.
 * @example ask: (broadcast) => ({ title: 'Delete this draft', ...aboutItem(broadcast.name, `/broadcasts/${broadcast.id}`), ... })
 */
export function aboutItem(name: string, href: string): Pick<ConfirmProps, 'subtitle' | 'back'> {
  return { subtitle: <strong>{name}</strong>, back: { href, label: name } };
}

/**
 * The two routes of an action that asks first. GET `/:id/<action>` shows the ConfirmPage `ask` describes for the item
 * `load` finds (NOT_FOUND for another organization's id); its form posts back to the same path, where `act` loads the
 * item again and does it.
 * @example confirmedAction(routes, 'delete', { load: (c) => getThing(c.var.deps, orgOf(c), c.req.param('id')!), ask: (thing) => ({ title: `Delete ${thing.name}`, submitLabel: 'Delete', isDangerous: true, back: { href: '/things', label: 'Things' } }), act: async (c, thing) => { await deleteThing(c.var.deps, orgOf(c), thing.id); return flashRedirect(c, 'Deleted.', '/things'); } });
 */
export function confirmedAction<T>(
  routes: Hono<DashEnv>,
  action: string,
  steps: { load: (c: Env) => Promise<T>; ask: (item: T) => Omit<ConfirmProps, 'c' | 'action'>; act: (c: Env, item: T) => Promise<Response> },
): void {
  const path = `/:id/${action}`;
  routes.get(path, async (c) => render(c, <ConfirmPage c={c} action={c.req.path} {...steps.ask(await steps.load(c))} />));
  routes.post(path, async (c) => steps.act(c, await steps.load(c)));
}
