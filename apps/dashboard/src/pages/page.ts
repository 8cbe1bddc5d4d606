import type { Hono } from 'hono';
import type { DashEnv, NavEntry } from '../env.ts';

/**
 * One page (or group of pages) of the dashboard: its routes, mounted at `path`, and its navigation entry. Adding a
 * page is one file exporting this and one line in `pages/index.ts`; the sidebar follows.
 */
export type DashboardPage = { path: string; nav?: NavEntry; routes: Hono<DashEnv> };
