import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { WARNING_MARK } from '../auth/cookies.ts';
import type { DashEnv, NavEntry } from '../env.ts';
import { AutoDisabledNotice } from './webhook-state.tsx';

type LayoutProps = { c: Context<DashEnv>; title: string; children?: Child; flash?: string | null };

const SECTION_TITLES: Record<NavEntry['section'], string> = { main: 'Messaging', settings: 'Settings', operations: 'Operations' };

/** A hidden field carrying this page's CSRF token; every form has one. */
export function CsrfField({ c }: { c: Context<DashEnv> }) {
  return <input type="hidden" name="_csrf" value={c.var.csrfToken} />;
}

function Sidebar({ c }: { c: Context<DashEnv> }) {
  const signedIn = c.var.signedIn!;
  const path = new URL(c.req.url).pathname;
  const roles = new Set(signedIn.memberships.map((m) => m.role));
  const visible = c.var.nav.filter((entry) => (!entry.roles || entry.roles.some((role) => roles.has(role))) && (!entry.isForInstallOperators || signedIn.isInstallOperator));
  const sections = (['main', 'settings', 'operations'] as const).filter((section) => visible.some((e) => e.section === section));
  return (
    <aside class="sidebar">
      {sections.map((section) => (
        <nav aria-label={SECTION_TITLES[section]}>
          <small class="section-title">{SECTION_TITLES[section]}</small>
          <ul>
            {visible
              .filter((entry) => entry.section === section)
              .map((entry) => (
                <li>
                  <a href={entry.href} aria-current={path.startsWith(entry.href) ? 'page' : undefined}>
                    {entry.label}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
      ))}
    </aside>
  );
}

function OrgSwitcher({ c }: { c: Context<DashEnv> }) {
  const signedIn = c.var.signedIn!;
  if (signedIn.memberships.length < 2) return <span class="org-name">{signedIn.membership.orgName}</span>;
  return (
    <form method="post" action="/organization" class="org-switcher">
      <CsrfField c={c} />
      <select name="orgId" aria-label="Organization" data-autosubmit>
        {signedIn.memberships.map((m) => (
          <option value={m.orgId} selected={m.orgId === signedIn.membership.orgId}>
            {m.orgName}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary outline">
        Switch
      </button>
    </form>
  );
}

/**
 * The page frame: top bar (brand, organization, account) and, when signed in, the sidebar built from the pages
 * that exist.
 * @example return render(c, <Layout c={c} title="API Keys">...</Layout>);
 */
export function Layout({ c, title, children, flash }: LayoutProps) {
  const signedIn = c.var.signedIn;
  return (
    <>
      {raw('<!doctype html>')}
      <html lang="en" data-theme="light">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${title} · Tidings`}</title>
          <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
          <link rel="stylesheet" href="/assets/pico.min.css" />
          <link rel="stylesheet" href="/assets/app.css" />
          <script src="/assets/app.js" defer></script>
        </head>
        <body class={signedIn ? 'signed-in' : 'signed-out'}>
          <header class="topbar">
            <a href="/" class="brand">
              <span class="logo" aria-hidden="true">
                T
              </span>{' '}
              Tidings
            </a>
            {signedIn && (
              <div class="account">
                <OrgSwitcher c={c} />
                <span class="role">{signedIn.membership.role}</span>
                <span class="email">{signedIn.user.email}</span>
                <form method="post" action="/sign-out" class="sign-out">
                  <CsrfField c={c} />
                  <button type="submit" class="secondary outline">
                    Sign out
                  </button>
                </form>
              </div>
            )}
          </header>
          <div class={signedIn ? 'shell' : 'shell-narrow'}>
            {signedIn && <Sidebar c={c} />}
            <main>
              {signedIn && <AutoDisabledNotice c={c} />}
              {flash && (
                <p class={flash.startsWith(WARNING_MARK) ? 'flash warning' : 'flash'} role="status">
                  {flash.startsWith(WARNING_MARK) ? flash.slice(WARNING_MARK.length) : flash}
                </p>
              )}
              {children}
            </main>
          </div>
        </body>
      </html>
    </>
  );
}
