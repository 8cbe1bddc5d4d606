import { CreateSegmentBody, type SegmentCriteria, type SegmentWithCount } from '@tidings/contracts';
import { compileCriteria, countContacts, createSegment, deleteSegment, getSegment, listSegmentContacts, listSegments, updateSegment } from '@tidings/core';
import type { Context } from 'hono';
import { takeFlash } from '../auth/cookies.ts';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { PageLinks } from '../views/filtered-list.tsx';
import { Field, FormError, type FieldErrors } from '../views/form.tsx';
import { ContactsTable } from '../views/contact-views.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { EmptyState, PagedList, Table } from '../views/list.tsx';
import { DetailPage, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { applyBuilderAction, builderErrors, builderOf, CriteriaSummary, criteriaOf, GroupView, newCondition, readBuilder, type BuilderGroup } from '../views/segment-builder.tsx';
import { flashRedirect, orgOf, PAGE_SIZE, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/segments';

type Env = Context<DashEnv>;
/** The builder form as posted or loaded: the name, the criteria tree, and what to show about them. */
type Builder = { name: string; root: BuilderGroup; errors: FieldErrors; count: number | null };

const countLine = (count: number) => `${count.toLocaleString('en-US')} ${count === 1 ? 'contact matches' : 'contacts match'} now`;
/** The stored count, unless the conditions changed since it was counted (the recount runs in the background). */
const storedCountLine = (segment: SegmentWithCount) =>
  segment.countedAt && segment.countedAt < segment.updatedAt ? 'Counting the contacts that match the new conditions…' : countLine(segment.contactCount);

async function listPage(c: Env) {
  const { membership } = c.var.signedIn!;
  const page = await listSegments(c.var.deps, membership.orgId, pageQuery(c));
  return render(
    c,
    <TitledPage
      c={c}
      title="Segments"
      intro={<>Saved filters over the contacts of {membership.orgName}, evaluated when used: a broadcast to a segment reaches the contacts that match it then.</>}
    >
      {canManage(c.var.signedIn) && (
        <div class="actions page-actions">
          <a href={`${BASE}/new`} role="button">
            New segment
          </a>
        </div>
      )}
      <PagedList
        base={BASE}
        page={page}
        empty={{ title: 'No segments yet', hint: <p>A segment picks contacts by their fields and attributes, such as everyone on the pro plan subscribed to email.</p> }}
        olderLabel="Older segments"
      >
        <Table headers={['Name', 'Created', 'Updated']}>
          {page.data.map((segment) => (
            <tr data-segment-id={segment.id}>
              <td class="name">
                <a href={`${BASE}/${segment.id}`}>{segment.name}</a>
              </td>
              <td>
                <Time at={segment.createdAt} />
              </td>
              <td>
                <Time at={segment.updatedAt} />
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
    </TitledPage>,
  );
}

function BuilderForm({ c, action, builder, submitLabel }: { c: Env; action: string; builder: Builder; submitLabel: string }) {
  return (
    <form method="post" action={action} class="card" id="segment-builder">
      <CsrfField c={c} />
      <FormError errors={builder.errors} />
      <div class="create-row">
        <Field class="grow" name="name" label="Name" errors={builder.errors} value={builder.name} placeholder="e.g. Pro customers" maxlength={200} />
        {/* first in the form, so Enter in a field counts rather than adding a condition */}
        <button type="submit" name="do" value="count" class="secondary">
          Count matches
        </button>
      </div>
      <p id="segment-count" role="status" class="segment-count">
        {builder.count === null ? 'Complete the conditions to see how many contacts match.' : countLine(builder.count)}
      </p>
      <GroupView group={builder.root} errors={builder.errors} />
      <button type="submit" name="do" value="save">
        {submitLabel}
      </button>
      <script src="/assets/segment-count.js" defer></script>
    </form>
  );
}

/** How many contacts the criteria match now, or null when they are not complete (one COUNT in SQL). */
async function countOf(c: Env, root: BuilderGroup): Promise<{ count: number | null; issues: { path: PropertyKey[]; message: string }[] }> {
  const parsed = CreateSegmentBody.shape.criteria.safeParse(criteriaOf(root));
  if (!parsed.success) return { count: null, issues: parsed.error.issues.map((issue) => ({ ...issue, path: ['criteria', ...issue.path] })) };
  return { count: await countContacts(c.var.deps, orgOf(c), [compileCriteria(parsed.data as SegmentCriteria)]), issues: [] };
}

function builderPage(c: Env, builder: Builder, status: 200 | 400 = 200) {
  return render(
    c,
    <DetailPage
      c={c}
      title="New segment"
      back={{ href: BASE, label: 'Segments' }}
      subtitle={<>Conditions on contact fields and attributes (attributes.&lt;name&gt;), in groups that match all or any of theirs.</>}
      showsNotice={false}
    >
      <BuilderForm c={c} action={`${BASE}/new`} builder={builder} submitLabel="Save segment" />
    </DetailPage>,
    status,
  );
}

async function detailPage(c: Env, segment: SegmentWithCount, builder?: Builder, status: 200 | 400 = 200) {
  const cursor = c.req.query('cursor') || undefined;
  const matches = await listSegmentContacts(c.var.deps, orgOf(c), segment.id, { limit: PAGE_SIZE, offset: 0, cursor });
  return render(
    c,
    <Layout c={c} title={segment.name} flash={takeFlash(c)}>
      <a href={BASE} class="back">
        ← Segments
      </a>
      <hgroup class="page-title">
        <h1>{segment.name}</h1>
        <p id="contact-count">{storedCountLine(segment)}</p>
      </hgroup>
      {canManage(c.var.signedIn) ? (
        <>
          <BuilderForm
            c={c}
            action={`${BASE}/${segment.id}`}
            builder={builder ?? { name: segment.name, root: builderOf(segment.criteria), errors: {}, count: segment.contactCount }}
            submitLabel="Save changes"
          />
          <div class="actions page-actions">
            <a href={`${BASE}/${segment.id}/delete`} role="button" class="outline danger-outline small">
              Delete segment…
            </a>
          </div>
        </>
      ) : (
        <section class="card">
          <CriteriaSummary criteria={segment.criteria} />
        </section>
      )}
      <h2 class="section-heading">Matching contacts</h2>
      {matches.data.length === 0 ? (
        <EmptyState title="No contacts match">
          <p>Contacts that match later are included when the segment is used.</p>
        </EmptyState>
      ) : (
        <ContactsTable contacts={matches.data} />
      )}
      <PageLinks base={`${BASE}/${segment.id}`} filters={{}} page={matches} cursor={cursor} label="More contacts" />
    </Layout>,
    status,
  );
}

/**
 * One post of the builder form: a button that adds or removes a node shows the form again (with the count when the
 * criteria are complete); `count` shows the count or what is wrong; `save` saves through `save` when valid.
 */
async function handleBuilder(
  c: Env,
  save: (name: string, criteria: SegmentCriteria) => Promise<Response>,
  show: (builder: Builder, status?: 200 | 400) => Promise<Response> | Response,
) {
  const form = await c.req.parseBody({ all: true });
  const { root, byPath } = readBuilder(form);
  const name = typeof form.name === 'string' ? form.name : '';
  const action = typeof form.do === 'string' ? form.do : 'count';
  if (action !== 'count' && action !== 'save') {
    applyBuilderAction(action, byPath);
    return show({ name, root, errors: {}, count: (await countOf(c, root)).count });
  }
  if (action === 'count') {
    const { count, issues } = await countOf(c, root);
    return show({ name, root, errors: builderErrors(issues), count }, count === null ? 400 : 200);
  }
  const parsed = CreateSegmentBody.safeParse({ name, criteria: criteriaOf(root) });
  if (!parsed.success) return show({ name, root, errors: builderErrors(parsed.error.issues), count: (await countOf(c, root)).count }, 400);
  return save(parsed.data.name, parsed.data.criteria);
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.get('/new', async (c) => {
  if (!canManage(c.var.signedIn)) return c.redirect(BASE, 303);
  const root: BuilderGroup = { join: 'all', items: [newCondition()] };
  return builderPage(c, { name: '', root, errors: {}, count: (await countOf(c, root)).count });
});

routes.post('/new', (c) =>
  handleBuilder(
    c,
    async (name, criteria) => {
      const segment = await createSegment(c.var.deps, orgOf(c), { name, criteria });
      return flashRedirect(c, `The segment is saved: ${countLine(segment.contactCount)}.`, `${BASE}/${segment.id}`);
    },
    (builder, status) => builderPage(c, builder, status),
  ),
);

routes.get('/:id', async (c) => detailPage(c, await getSegment(c.var.deps, orgOf(c), c.req.param('id'))));

routes.post('/:id', async (c) => {
  const segment = await getSegment(c.var.deps, orgOf(c), c.req.param('id'));
  return handleBuilder(
    c,
    async (name, criteria) => {
      const updated = await updateSegment(c.var.deps, orgOf(c), segment.id, { name, criteria });
      return flashRedirect(c, `The segment is saved: ${storedCountLine(updated)}.`, `${BASE}/${updated.id}`);
    },
    (builder, status) => detailPage(c, segment, builder, status),
  );
});

confirmedAction(routes, 'delete', {
  load: (c) => getSegment(c.var.deps, orgOf(c), c.req.param('id')!),
  ask: (segment) => ({
    title: `Delete the segment ${segment.name}`,
    subtitle: countLine(segment.contactCount),
    submitLabel: 'Delete segment',
    isDangerous: true,
    back: { href: `${BASE}/${segment.id}`, label: segment.name },
    children: <p>Only the saved filter goes: the contacts stay. Broadcasts already sent to it are kept.</p>,
  }),
  act: async (c, segment) => {
    await deleteSegment(c.var.deps, orgOf(c), segment.id);
    return flashRedirect(c, `The segment ${segment.name} is deleted.`, BASE);
  },
});

/** Segments: list, the criteria builder with the live count, matching contacts, delete; through the core functions. */
export const segmentsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Segments', href: BASE, section: 'main' },
  routes,
};
