import { AuditAction, AuditListQuery, type AuditEvent } from '@tidings/contracts';
import { listApiKeys, listAuditEvents, listMembers } from '@tidings/core';
import type { Context } from 'hono';
import { MANAGER_ROLES, type DashEnv } from '../env.ts';
import { requireManager } from '../middleware/require.ts';
import { PageLinks } from '../views/filtered-list.tsx';
import { zodFieldErrors } from '../views/form.tsx';
import { EmptyState, Table } from '../views/list.tsx';
import { TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { PAGE_SIZE, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/settings/audit-log';

type Env = Context<DashEnv>;
type Filters = { action: string; actorId: string; since: string };
/** Who an actor id is, for people to read: a member's email or a key's name. */
type Actors = { people: Map<string, string>; keys: Map<string, string> };

function readFilters(c: Env): Filters {
  const q = (name: string) => (c.req.query(name) ?? '').trim();
  return { action: q('action'), actorId: q('actorId'), since: q('since') };
}

function FilterForm({ filters, actors }: { filters: Filters; actors: Actors }) {
  return (
    <form method="get" action={BASE} class="card create-row" role="search" aria-label="Filter the audit log">
      <label>
        Action
        <select name="action">
          <option value="">Any action</option>
          {AuditAction.options.map((action) => (
            <option value={action} selected={filters.action === action}>
              {action}
            </option>
          ))}
        </select>
      </label>
      <label>
        Actor
        <select name="actorId">
          <option value="">Anyone</option>
          {[...actors.people].map(([id, email]) => (
            <option value={id} selected={filters.actorId === id}>
              {email}
            </option>
          ))}
          {[...actors.keys].map(([id, name]) => (
            <option value={id} selected={filters.actorId === id}>
              API key {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Since
        <input type="date" name="since" value={filters.since} />
      </label>
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

function ActorName({ actor, actors }: { actor: AuditEvent['actor']; actors: Actors }) {
  if (actor.type === 'cli') return <span>The tidings CLI</span>;
  if (actor.type === 'user') return <span>{(actor.id && actors.people.get(actor.id)) ?? actor.id ?? 'Someone signed out'}</span>;
  const name = actor.id && actors.keys.get(actor.id);
  return (
    <span>
      API key {name ?? ''} <code>{actor.id}</code>
    </span>
  );
}

function AuditTable({ events, actors }: { events: AuditEvent[]; actors: Actors }) {
  return (
    <Table headers={['When', 'Action', 'Actor', 'Target', 'Address']}>
      {events.map((event) => (
        <tr data-audit-id={event.id}>
          <td>
            <Time at={event.createdAt} />
          </td>
          <td>
            <code>{event.action}</code>
          </td>
          <td>
            <ActorName actor={event.actor} actors={actors} />
          </td>
          <td>{event.targetId ? <code>{event.targetId}</code> : <span class="muted">—</span>}</td>
          <td>{event.ip ?? <span class="muted">—</span>}</td>
        </tr>
      ))}
    </Table>
  );
}

/** The names of the organization's members and keys, for the actor column and filter (two bounded queries). */
async function actorsOf(c: Env, orgId: string): Promise<Actors> {
  const [{ members }, keys] = await Promise.all([listMembers(c.var.deps, orgId), listApiKeys(c.var.deps, orgId, 'live', { limit: 100, offset: 0 })]);
  return { people: new Map(members.map((m) => [m.userId, m.email])), keys: new Map(keys.data.map((k) => [k.id, k.name])) };
}

async function auditLogPage(c: Env) {
  const { membership } = c.var.signedIn!;
  const filters = readFilters(c);
  const cursor = c.req.query('cursor') || undefined;
  const query = AuditListQuery.safeParse({
    limit: PAGE_SIZE,
    cursor,
    action: filters.action || undefined,
    actorId: filters.actorId || undefined,
    // a date picks the start of that day (UTC)
    since: filters.since ? (/^\d{4}-\d{2}-\d{2}$/.test(filters.since) ? `${filters.since}T00:00:00Z` : filters.since) : undefined,
  });
  const [page, actors] = await Promise.all([
    query.success ? listAuditEvents(c.var.deps, membership.orgId, query.data, { onlyTestChanges: false }) : null,
    actorsOf(c, membership.orgId),
  ]);
  const isFiltered = Object.values(filters).some(Boolean);
  return render(
    c,
    <TitledPage
      c={c}
      title="Audit log"
      intro={
        <>
          Who changed what in {membership.orgName}: keys, members, webhooks, domains, numbers, suppressions, topics, broadcasts and settings, through the API, this dashboard or the
          CLI, newest first. Kept {c.var.deps.config.retention.auditDays || 'all'} days.
        </>
      }
      showsNotice={false}
    >
      <FilterForm filters={filters} actors={actors} />
      {!page ? (
        <p class="form-error" role="alert">
          {Object.values(zodFieldErrors(query.error!.issues)).join(' ')}
        </p>
      ) : page.data.length === 0 ? (
        <EmptyState title={isFiltered ? 'No changes match these filters' : 'No changes yet'}>
          <p>{isFiltered ? 'Try other filters.' : 'Changes made through the API, this dashboard or the CLI show up here.'}</p>
        </EmptyState>
      ) : (
        <>
          <AuditTable events={page.data} actors={actors} />
          <PageLinks base={BASE} filters={filters} page={page} cursor={cursor} label="Older changes" />
        </>
      )}
    </TitledPage>,
    page ? 200 : 400,
  );
}

const routes = pageRoutes();
// who did what from which address is for those who manage the organization
routes.get('*', requireManager);
routes.get('/', (c) => auditLogPage(c));

/** Settings > Audit log: every change to the organization, filtered by action, actor and date, paged. */
export const auditLogSettingsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Audit log', href: BASE, section: 'settings', roles: [...MANAGER_ROLES] },
  routes,
};
