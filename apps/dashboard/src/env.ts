import type { Deps, SignedIn } from '@tidings/core';

/** What the dashboard's middleware puts on the Hono context for the pages after it. */
export type DashEnv = {
  Variables: {
    deps: Deps;
    /** The signed-in person, or null for a visitor. */
    signedIn: SignedIn | null;
    /** The session cookie's token while signed in (for the CSRF token and key reveals), else null. */
    sessionToken: string | null;
    /** The token every form of this page carries. */
    csrfToken: string;
    /** Navigation entries of the pages that exist. */
    nav: NavEntry[];
  };
};

/**
 * One link in the navigation; a page adds its own when it is built, so there are never dead links. `roles` limits it
 * to those roles in some organization; `isForInstallOperators` to install operators.
 */
export type NavEntry = {
  label: string;
  href: string;
  section: 'main' | 'settings' | 'operations';
  roles?: ('owner' | 'operator' | 'member')[];
  isForInstallOperators?: boolean;
};

/** Owners and operators change settings and see the queues; members read. */
export const MANAGER_ROLES = ['owner', 'operator'] as const;

/** Whether the person may manage things in the organization they are looking at. */
export function canManage(signedIn: SignedIn | null): boolean {
  return !!signedIn && (MANAGER_ROLES as readonly string[]).includes(signedIn.membership.role);
}

/** Whether the person operates the install (the queues are shared by every organization, so no role in one grants it). */
export function canOperateInstall(signedIn: SignedIn | null): boolean {
  return !!signedIn?.isInstallOperator;
}
