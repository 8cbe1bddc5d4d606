import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import { takeFlash } from '../auth/cookies.ts';
import { canManage, type DashEnv } from '../env.ts';
import { Layout } from './layout.tsx';

type Env = Context<DashEnv>;

/**
 * A page's heading: its title, and the paragraph under it when there is one. A long title (a name, a URL) may break
 * anywhere to fit a narrow screen.
 * @example <PageTitle title="Webhooks">Endpoints that receive signed events.</PageTitle>
 */
export function PageTitle({ title, isLong, children }: { title: Child; isLong?: boolean; children?: Child }) {
  return (
    <hgroup class="page-title">
      <h1 class={isLong ? 'break' : undefined}>{title}</h1>
      {children !== undefined && <p>{children}</p>}
    </hgroup>
  );
}

/**
 * The link back to the page a detail page belongs to, above its title.
 * @example <BackLink href="/webhooks" label="Webhooks" />
 */
export function BackLink({ href, label }: { href: string; label: Child }) {
  return (
    <a href={href} class="back">
      ← {label}
    </a>
  );
}

type TitledPageProps = {
  c: Env;
  /** The page's title, in the tab and as its heading. */
  title: string;
  /** The heading when it differs from the tab's title. */
  heading?: Child;
  /** What the page is about, under the heading. */
  intro: Child;
  /** Whether the page shows this request's notice ("Deleted."); a page no form redirects to leaves it for the next. */
  showsNotice?: boolean;
  children?: Child;
};

/**
 * A page of the sidebar (a list, the overview, a settings page): the layout with this request's notice, the heading
 * and what the page is about, then its forms and its list.
 * @example <TitledPage c={c} title="Templates" intro="Reusable emails and SMS."><ForManagers ...>{form}</ForManagers><PagedList ...>{table}</PagedList></TitledPage>
 */
export function TitledPage({ c, title, heading, intro, showsNotice = true, children }: TitledPageProps) {
  return (
    <Layout c={c} title={title} flash={showsNotice ? takeFlash(c) : undefined}>
      <PageTitle title={heading ?? title}>{intro}</PageTitle>
      {children}
    </Layout>
  );
}

type DetailPageProps = {
  c: Env;
  /** The page's title, in the tab and as its heading. */
  title: string;
  /** A title that may be long (a name someone chose, a URL): it breaks anywhere to fit. */
  isTitleLong?: boolean;
  /** The heading when it says more than the tab's title (`Versions of <name>`). */
  heading?: Child;
  back: { href: string; label: Child };
  /** The line under the heading: kind, state, id. */
  subtitle?: Child;
  /** Whether the page shows this request's notice ("Saved."); a page no form redirects to leaves it for the next. */
  showsNotice?: boolean;
  children?: Child;
};

/**
 * The page of one item (a broadcast, an endpoint, a contact): the layout, the way back to its list, its heading and
 * the line under it, then its cards.
 * @example <DetailPage c={c} title={webhook.url} back={{ href: '/webhooks', label: 'Webhooks' }} subtitle={<WebhookBadge webhook={webhook} />}>...</DetailPage>
 */
export function DetailPage({ c, title, isTitleLong, heading, back, subtitle, showsNotice = true, children }: DetailPageProps) {
  return (
    <Layout c={c} title={title} flash={showsNotice ? takeFlash(c) : undefined}>
      <BackLink href={back.href} label={back.label} />
      <PageTitle title={heading ?? title} isLong={isTitleLong}>
        {subtitle}
      </PageTitle>
      {children}
    </Layout>
  );
}

/**
 * What owners and operators get (a form that changes something), or for the other roles a line saying they read only.
 * @example <ForManagers c={c} readerNote="You can see this organization's keys; owners and operators manage them."><CreateForm /></ForManagers>
 */
export function ForManagers({ c, readerNote, children }: { c: Env; readerNote: string; children?: Child }) {
  // biome-ignore lint/complexity/noUselessFragments: a component answers one element, and the children may be several
  return canManage(c.var.signedIn) ? <>{children}</> : <p class="muted">{readerNote}</p>;
}
