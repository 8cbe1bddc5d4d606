import { ContactExportQuery, ContactListQuery, CreateContactBody, UpdateContactBody } from '@tidings/contracts';
import { AppError, createContact, deleteContact, exportContacts, getContact, listContacts, listSegments, listTopics, updateContact } from '@tidings/core';
import type { Context } from 'hono';
import { attributeToText } from '../attribute-text.ts';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { exportUrl, FilterForm, readFilters } from '../views/contact-filters.tsx';
import { attributesOf, changesOf, ContactForm, ContactTopics, inputOf, readContactForm, type ContactInput } from '../views/contact-form.tsx';
import { ContactsTable, fullName, Subscriptions } from '../views/contact-views.tsx';
import { Facts } from '../views/facts.tsx';
import { PageLinks } from '../views/filtered-list.tsx';
import { fieldErrorsOf, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { EmptyState } from '../views/list.tsx';
import { DetailPage, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgOf, PAGE_SIZE, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/contacts';

type Env = Context<DashEnv>;

const CONTACT_FIELDS = ['email', 'phone', 'firstName', 'lastName', 'attributes'];

async function listPage(c: Env) {
  const { membership } = c.var.signedIn!;
  const filters = readFilters(c);
  const cursor = c.req.query('cursor') || undefined;
  const query = ContactListQuery.safeParse({
    limit: PAGE_SIZE,
    cursor,
    q: filters.q || undefined,
    subscribed: filters.subscribed || undefined,
    segmentId: filters.segmentId || undefined,
  });
  const [page, segments] = await Promise.all([
    query.success ? listContacts(c.var.deps, membership.orgId, query.data) : null,
    listSegments(c.var.deps, membership.orgId, { limit: 100, offset: 0 }),
  ]);
  const isFiltered = Object.values(filters).some(Boolean);
  return render(
    c,
    <TitledPage c={c} title="Contacts" intro={`The people ${membership.orgName} messages, with the attributes segments and templates use.`}>
      {canManage(c.var.signedIn) && (
        <div class="actions page-actions">
          <a href={`${BASE}/new`} role="button">
            New contact
          </a>
          <a href={`${BASE}/import`} role="button" class="secondary outline">
            Import a CSV…
          </a>
        </div>
      )}
      <FilterForm filters={filters} segments={segments.data} />
      {page && page.data.length > 0 && (
        <p class="export-link">
          <a href={exportUrl(filters)} download="contacts.csv">
            Export {isFiltered ? 'these contacts' : 'all contacts'} as CSV
          </a>{' '}
          <small class="muted">(contact.export: streamed, so your browser's download shows its progress)</small>
        </p>
      )}
      {!page ? (
        <p class="form-error" role="alert">
          {Object.values(zodFieldErrors(query.error!.issues)).join(' ')}
        </p>
      ) : page.data.length === 0 ? (
        <EmptyState title={isFiltered ? 'No contacts match these filters' : 'No contacts yet'}>
          <p>{isFiltered ? 'Try other filters.' : 'Add one, import a CSV, or create them with the API (contact.create).'}</p>
        </EmptyState>
      ) : (
        <>
          <ContactsTable contacts={page.data} />
          <PageLinks base={BASE} filters={filters} page={page} cursor={cursor} label="Older contacts" />
        </>
      )}
    </TitledPage>,
    page ? 200 : 400,
  );
}

function newPage(c: Env, input = inputOf(), errors: FieldErrors = {}, status: 200 | 400 = 200) {
  return render(
    c,
    <DetailPage c={c} title="New contact" showsNotice={false} back={{ href: BASE, label: 'Contacts' }} subtitle="An email, a phone, or both.">
      <ContactForm c={c} action={BASE} input={input} errors={errors} submitLabel="Add contact" />
    </DetailPage>,
    status,
  );
}

/** Topics shown on a contact's page, at most (one query). */
const MAX_TOPICS_SHOWN = 100;

async function detailPage(c: Env, id: string, options: { input?: ContactInput; errors?: FieldErrors; status?: 200 | 400 } = {}) {
  const [contact, topics] = await Promise.all([getContact(c.var.deps, orgOf(c), id), listTopics(c.var.deps, orgOf(c), { limit: MAX_TOPICS_SHOWN, offset: 0 })]);
  const title = fullName(contact) || contact.email || contact.phone || contact.id;
  const manage = canManage(c.var.signedIn);
  return render(
    c,
    <DetailPage c={c} title={title} back={{ href: BASE, label: 'Contacts' }} subtitle={<Subscriptions contact={contact} />}>
      <Facts
        class="facts card"
        facts={[
          ['Email', contact.email],
          ['Phone', contact.phone],
          [
            'Attributes',
            Object.keys(contact.attributes).length > 0 &&
              Object.entries(contact.attributes).map(([key, value]) => (
                <code class="chip">
                  {key}: {attributeToText(value)}
                </code>
              )),
          ],
          ['Added', <Time at={contact.createdAt} />],
          ['Updated', <Time at={contact.updatedAt} />],
          ['ID', <code>{contact.id}</code>],
        ]}
      />
      <h2 class="section-heading">Topics</h2>
      <ContactTopics c={c} contact={contact} topics={topics.data} manage={manage} />
      {manage && (
        <>
          <h2 class="section-heading">Edit</h2>
          <ContactForm c={c} action={`${BASE}/${contact.id}`} input={options.input ?? inputOf(contact)} errors={options.errors ?? {}} submitLabel="Save contact" />
          <div class="actions page-actions">
            <a href={`${BASE}/${contact.id}/delete`} role="button" class="outline danger-outline small">
              Delete contact…
            </a>
          </div>
        </>
      )}
    </DetailPage>,
    options.status ?? 200,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.get('/new', (c) => (canManage(c.var.signedIn) ? newPage(c) : c.redirect(BASE, 303)));

routes.post('/', async (c) => {
  const input = await readContactForm(c);
  const attributes = attributesOf(input);
  if (typeof attributes === 'string') return newPage(c, input, { attributes }, 400);
  const parsed = CreateContactBody.safeParse({
    email: input.email || undefined,
    phone: input.phone || undefined,
    firstName: input.firstName || undefined,
    lastName: input.lastName || undefined,
    attributes,
    emailSubscribed: input.emailSubscribed,
    smsSubscribed: input.smsSubscribed,
  });
  if (!parsed.success) return newPage(c, input, zodFieldErrors(parsed.error.issues), 400);
  try {
    const contact = await createContact(c.var.deps, orgOf(c), parsed.data);
    return flashRedirect(c, 'The contact is added.', `${BASE}/${contact.id}`);
  } catch (error) {
    return newPage(c, input, fieldErrorsOf(error, CONTACT_FIELDS), 400);
  }
});

// contact.export's CSV, streamed as the API streams it, for the filters of the list (before /:id, which would take it)
routes.get('/export.csv', async (c) => {
  const filters = readFilters(c);
  const query = ContactExportQuery.safeParse({ q: filters.q || undefined, subscribed: filters.subscribed || undefined, segmentId: filters.segmentId || undefined });
  if (!query.success) throw new AppError('BAD_REQUEST', Object.values(zodFieldErrors(query.error.issues)).join(' '));
  return c.body(await exportContacts(c.var.deps, orgOf(c), query.data), 200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': 'attachment; filename="contacts.csv"',
  });
});

routes.get('/:id', (c) => detailPage(c, c.req.param('id')));

routes.post('/:id', async (c) => {
  const id = c.req.param('id');
  const contact = await getContact(c.var.deps, orgOf(c), id);
  const input = await readContactForm(c);
  const attributes = attributesOf(input);
  if (typeof attributes === 'string') return detailPage(c, id, { input, errors: { attributes }, status: 400 });
  const changes = changesOf(contact, input, attributes);
  if (Object.keys(changes).length === 0) return flashRedirect(c, 'Nothing changed.', `${BASE}/${id}`);
  const parsed = UpdateContactBody.safeParse(changes);
  if (!parsed.success) return detailPage(c, id, { input, errors: zodFieldErrors(parsed.error.issues), status: 400 });
  try {
    await updateContact(c.var.deps, orgOf(c), id, parsed.data);
    return flashRedirect(c, 'The contact is saved.', `${BASE}/${id}`);
  } catch (error) {
    return detailPage(c, id, { input, errors: fieldErrorsOf(error, CONTACT_FIELDS), status: 400 });
  }
});

// the topic checkboxes: each topic the page showed is set to ticked or not, an explicit choice
routes.post('/:id/topics', async (c) => {
  const id = c.req.param('id');
  const form = await c.req.parseBody({ all: true });
  const list = (value: unknown) => (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is string => typeof v === 'string');
  const ticked = new Set(list(form.topic));
  const parsed = UpdateContactBody.safeParse({ topics: [...new Set(list(form.shown))].map((topicId) => ({ topicId, subscribed: ticked.has(topicId) })) });
  if (!parsed.success) return detailPage(c, id, { errors: zodFieldErrors(parsed.error.issues), status: 400 });
  await updateContact(c.var.deps, orgOf(c), id, parsed.data);
  return flashRedirect(c, 'The topics are saved.', `${BASE}/${id}`);
});

confirmedAction(routes, 'delete', {
  load: (c) => getContact(c.var.deps, orgOf(c), c.req.param('id')!),
  ask: (contact) => ({
    title: `Delete ${fullName(contact) || contact.email || contact.phone}`,
    subtitle: [contact.email, contact.phone].filter(Boolean).join(' · '),
    submitLabel: 'Delete contact',
    isDangerous: true,
    back: { href: `${BASE}/${contact.id}`, label: 'Contact' },
    children: <p>The contact and its attributes go. Messages sent to it stay in the log, and so do its suppressions: an opt-out outlives the contact.</p>,
  }),
  act: async (c, contact) => {
    await deleteContact(c.var.deps, orgOf(c), contact.id);
    return flashRedirect(c, 'The contact is deleted.', BASE);
  },
});

/** Contacts: list with search and filters, add, edit (attributes as rows), delete, import a CSV; through the core functions. */
export const contactsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Contacts', href: BASE, section: 'main' },
  routes,
};
