import { AttributeKey, ContactListQuery, CreateContactBody, MAX_BULK_CONTACTS, UpdateContactBody, type Contact, type JsonValue, type Segment } from '@tidings/contracts';
import { bulkCreateContacts, createContact, deleteContact, getContact, listContacts, listSegments, updateContact, type Deps } from '@tidings/core';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { attributeFromText, attributeToText } from '../attribute-text.ts';
import { takeFlash } from '../auth/cookies.ts';
import { csvColumns, csvContact, parseCsv } from '../contacts-csv.ts';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Facts } from '../views/facts.tsx';
import { PageLinks } from '../views/filtered-list.tsx';
import { Field, fieldErrorsOf, FormError, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { EmptyState, Table } from '../views/list.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgOf, PAGE_SIZE, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/contacts';
/** Blank attribute rows a contact form offers for new keys (no script needed to add one). */
const BLANK_ATTRIBUTE_ROWS = 3;
/** The largest CSV the import takes in one upload (about 100,000 typical rows). */
const MAX_CSV_BYTES = 10 * 1024 * 1024;

type Env = Context<DashEnv>;
type Filters = { q: string; subscribed: string; segmentId: string };
/** A contact form as typed. */
type ContactInput = { email: string; phone: string; firstName: string; lastName: string; emailSubscribed: boolean; smsSubscribed: boolean; attributes: [string, string][] };
type RowReport = { row: number; message: string };
type ImportReport = { rows: number; created: number; errors: RowReport[] };

const fullName = (contact: Contact) => [contact.firstName, contact.lastName].filter(Boolean).join(' ');
const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

function readFilters(c: Env): Filters {
  const q = (name: string) => (c.req.query(name) ?? '').trim();
  return { q: q('q'), subscribed: q('subscribed'), segmentId: q('segmentId') };
}

function FilterForm({ filters, segments }: { filters: Filters; segments: Segment[] }) {
  return (
    <form method="get" action={BASE} class="card create-row" role="search" aria-label="Filter contacts">
      <label class="grow">
        Search
        <input type="search" name="q" value={filters.q} placeholder="Start of a name or email" maxlength={100} />
      </label>
      <label>
        Subscribed
        <select name="subscribed">
          <option value="">Anyone</option>
          <option value="true" selected={filters.subscribed === 'true'}>
            To email or SMS
          </option>
          <option value="false" selected={filters.subscribed === 'false'}>
            To neither
          </option>
        </select>
      </label>
      {segments.length > 0 && (
        <label>
          Segment
          <select name="segmentId">
            <option value="">All contacts</option>
            {segments.map((segment) => (
              <option value={segment.id} selected={filters.segmentId === segment.id}>
                {segment.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

/** Email and SMS subscription of a contact, as two small badges. */
function Subscriptions({ contact }: { contact: Contact }) {
  return (
    <>
      <span class={`badge ${contact.emailSubscribed ? 'enabled' : 'disabled'}`}>Email {contact.emailSubscribed ? 'on' : 'off'}</span>{' '}
      <span class={`badge ${contact.smsSubscribed ? 'enabled' : 'disabled'}`}>SMS {contact.smsSubscribed ? 'on' : 'off'}</span>
    </>
  );
}

/**
 * A table of contacts linking to each one; the segment page lists its matches with it too.
 * @example <ContactsTable contacts={page.data} />
 */
export function ContactsTable({ contacts }: { contacts: Contact[] }) {
  return (
    <Table headers={['Name', 'Email', 'Phone', 'Subscribed', 'Added']}>
      {contacts.map((contact) => (
        <tr data-contact-id={contact.id}>
          <td class="name">
            <a href={`${BASE}/${contact.id}`}>{fullName(contact) || contact.email || contact.phone}</a>
          </td>
          <td>{contact.email ?? <span class="muted">—</span>}</td>
          <td>{contact.phone ?? <span class="muted">—</span>}</td>
          <td>
            <Subscriptions contact={contact} />
          </td>
          <td>
            <Time at={contact.createdAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

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
    <Layout c={c} title="Contacts" flash={takeFlash(c)}>
      <hgroup class="page-title">
        <h1>Contacts</h1>
        <p>The people {membership.orgName} messages, with the attributes segments and templates use.</p>
      </hgroup>
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
    </Layout>,
    page ? 200 : 400,
  );
}

function inputOf(contact?: Contact): ContactInput {
  return {
    email: contact?.email ?? '',
    phone: contact?.phone ?? '',
    firstName: contact?.firstName ?? '',
    lastName: contact?.lastName ?? '',
    emailSubscribed: contact?.emailSubscribed ?? true,
    smsSubscribed: contact?.smsSubscribed ?? true,
    attributes: Object.entries(contact?.attributes ?? {}).map(([key, value]) => [key, attributeToText(value)]),
  };
}

async function readContactForm(c: Env): Promise<ContactInput> {
  const form = await c.req.parseBody({ all: true });
  const text = (name: string) => String(form[name] ?? '').trim();
  const keys = asList(form.attrKey);
  const values = asList(form.attrValue);
  return {
    email: text('email'),
    phone: text('phone'),
    firstName: text('firstName'),
    lastName: text('lastName'),
    emailSubscribed: form.emailSubscribed === 'on',
    smsSubscribed: form.smsSubscribed === 'on',
    attributes: keys.map((key, i) => [key.trim(), values[i] ?? ''] as [string, string]).filter(([key, value]) => key !== '' || value.trim() !== ''),
  };
}

/** The attribute rows as JSON values; a row with a value but no key is an error on `attributes`. */
function attributesOf(input: ContactInput): Record<string, JsonValue> | string {
  const attributes: Record<string, JsonValue> = {};
  for (const [key, text] of input.attributes) {
    if (key === '') return 'Give each attribute value a name.';
    if (!AttributeKey.safeParse(key).success) return `“${key.slice(0, 64)}”: attribute names are 1 to 64 letters, digits, _ or -, starting with a letter or _.`;
    const value = attributeFromText(text);
    if (value !== undefined) attributes[key] = value;
  }
  return attributes;
}

function ContactForm({ c, action, input, errors, submitLabel }: { c: Env; action: string; input: ContactInput; errors: FieldErrors; submitLabel: string }) {
  const rows = [...input.attributes, ...Array.from({ length: BLANK_ATTRIBUTE_ROWS }, (): [string, string] => ['', ''])];
  return (
    <form method="post" action={action} class="card" id="contact-form">
      <CsrfField c={c} />
      <FormError errors={errors} />
      <div class="create-row">
        <Field class="grow" name="email" label="Email" type="email" errors={errors} value={input.email} maxlength={254} />
        <Field class="grow" name="phone" label="Phone" errors={errors} value={input.phone} placeholder="+14155550123" maxlength={32} />
      </div>
      <div class="create-row">
        <Field class="grow" name="firstName" label="First name" errors={errors} value={input.firstName} maxlength={100} />
        <Field class="grow" name="lastName" label="Last name" errors={errors} value={input.lastName} maxlength={100} />
      </div>
      <fieldset>
        <label>
          <input type="checkbox" name="emailSubscribed" checked={input.emailSubscribed} /> Subscribed to email
        </label>
        <label>
          <input type="checkbox" name="smsSubscribed" checked={input.smsSubscribed} /> Subscribed to SMS
        </label>
      </fieldset>
      <fieldset class="attributes" aria-invalid={errors.attributes ? 'true' : undefined}>
        <legend>Attributes</legend>
        <p class="muted">
          A value that reads as JSON is stored as such (<code>12</code>, <code>true</code>, <code>["a","b"]</code>); anything else as text. Empty a row to remove that attribute.
        </p>
        {rows.map(([key, value], i) => (
          <div class="create-row attribute-row">
            <label class="grow">
              Name
              <input name="attrKey" value={key} maxlength={64} aria-label={`Attribute ${i + 1} name`} />
            </label>
            <label class="grow">
              Value
              <input name="attrValue" value={value} aria-label={`Attribute ${i + 1} value`} />
            </label>
          </div>
        ))}
        {errors.attributes && <small class="field-error">{errors.attributes}</small>}
      </fieldset>
      <button type="submit">{submitLabel}</button>
    </form>
  );
}

function newPage(c: Env, input = inputOf(), errors: FieldErrors = {}, status: 200 | 400 = 200) {
  return render(
    c,
    <Layout c={c} title="New contact">
      <a href={BASE} class="back">
        ← Contacts
      </a>
      <hgroup class="page-title">
        <h1>New contact</h1>
        <p>An email, a phone, or both.</p>
      </hgroup>
      <ContactForm c={c} action={BASE} input={input} errors={errors} submitLabel="Add contact" />
    </Layout>,
    status,
  );
}

async function detailPage(c: Env, id: string, options: { input?: ContactInput; errors?: FieldErrors; status?: 200 | 400 } = {}) {
  const contact = await getContact(c.var.deps, orgOf(c), id);
  const title = fullName(contact) || contact.email || contact.phone || contact.id;
  const manage = canManage(c.var.signedIn);
  return render(
    c,
    <Layout c={c} title={title} flash={takeFlash(c)}>
      <a href={BASE} class="back">
        ← Contacts
      </a>
      <hgroup class="page-title">
        <h1>{title}</h1>
        <p>
          <Subscriptions contact={contact} />
        </p>
      </hgroup>
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
    </Layout>,
    options.status ?? 200,
  );
}

/** What changed between the stored contact and the form, as contact.update's body (removed attributes as null). */
function changesOf(contact: Contact, input: ContactInput, attributes: Record<string, JsonValue>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const text = { email: contact.email, phone: contact.phone, firstName: contact.firstName, lastName: contact.lastName };
  for (const [name, stored] of Object.entries(text)) {
    const typed = input[name as keyof typeof text];
    if (typed !== (stored ?? '')) changes[name] = typed === '' ? null : typed;
  }
  if (input.emailSubscribed !== contact.emailSubscribed) changes.emailSubscribed = input.emailSubscribed;
  if (input.smsSubscribed !== contact.smsSubscribed) changes.smsSubscribed = input.smsSubscribed;
  const attributeChanges: Record<string, JsonValue> = {};
  for (const key of Object.keys(contact.attributes)) if (!(key in attributes)) attributeChanges[key] = null;
  for (const [key, value] of Object.entries(attributes)) if (JSON.stringify(contact.attributes[key]) !== JSON.stringify(value)) attributeChanges[key] = value;
  if (Object.keys(attributeChanges).length > 0) changes.attributes = attributeChanges;
  return changes;
}

const CONTACT_FIELDS = ['email', 'phone', 'firstName', 'lastName', 'attributes'];

/**
 * Imports CSV records (after the header) as contacts, {@link MAX_BULK_CONTACTS} per contact.bulkCreate call; rows
 * are numbered from `firstRow` (the first record after the header is row 1), so a report names rows of the file.
 */
async function importRecords(deps: Deps, orgId: string, header: string[], records: string[][], firstRow: number): Promise<ImportReport | string> {
  const columns = csvColumns(header);
  if (typeof columns === 'string') return columns;
  const report: ImportReport = { rows: records.length, created: 0, errors: [] };
  for (let start = 0; start < records.length; start += MAX_BULK_CONTACTS) {
    const rows: { row: number; contact: Record<string, unknown> }[] = [];
    records.slice(start, start + MAX_BULK_CONTACTS).forEach((cells, i) => {
      const row = firstRow + start + i;
      if (cells.length > columns.length) report.errors.push({ row, message: `${cells.length} values, but the first line names ${columns.length} columns` });
      else rows.push({ row, contact: csvContact(columns, cells) });
    });
    if (rows.length === 0) continue;
    const result = await bulkCreateContacts(
      deps,
      orgId,
      rows.map((r) => r.contact),
    );
    report.created += result.created.length;
    // bulkCreate names rows of its batch: an earlier row of the batch by index, which is a row of the file here
    const fileRow = (index: number) => rows[index]!.row;
    for (const error of result.errors) {
      report.errors.push({ row: fileRow(error.index), message: error.message.replace(/row (\d+) of this batch/, (_, index) => `row ${fileRow(Number(index))}`) });
    }
  }
  report.errors.sort((a, b) => a.row - b.row);
  return report;
}

function ImportReportView({ report }: { report: ImportReport }) {
  return (
    <>
      <p id="import-status" role="status">
        {report.created} of {report.rows} contacts imported{report.errors.length > 0 && `; ${report.errors.length} rows were not (listed below)`}.
      </p>
      <ImportErrors errors={report.errors} />
    </>
  );
}

/** The rows that were not imported; the script fills the same (hidden) table as chunks come back. */
function ImportErrors({ errors }: { errors: RowReport[] }) {
  return (
    <div class="table-wrap">
      <table class="striped" id="import-errors" hidden={errors.length === 0}>
        <thead>
          <tr>
            <th>Row</th>
            <th>Why it was not imported</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((error) => (
            <tr>
              <td>{error.row}</td>
              <td>{error.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function importPage(c: Env, options: { report?: ImportReport; error?: string; status?: 200 | 400 } = {}) {
  return render(
    c,
    <Layout c={c} title="Import contacts">
      <a href={BASE} class="back">
        ← Contacts
      </a>
      <hgroup class="page-title">
        <h1>Import contacts</h1>
        <p>
          A CSV file whose first line names the columns: <code>email</code>, <code>phone</code>, <code>firstName</code>, <code>lastName</code>, <code>emailSubscribed</code>,{' '}
          <code>smsSubscribed</code>; any other column is an attribute. Rows that cannot be imported (a bad address, a duplicate) are listed with the reason; the others are
          imported.
        </p>
      </hgroup>
      <form method="post" action={`${BASE}/import`} enctype="multipart/form-data" class="card" id="contact-import">
        <CsrfField c={c} />
        {options.error && (
          <p class="form-error" role="alert">
            {options.error}
          </p>
        )}
        <div class="create-row">
          <label class="grow">
            CSV file
            <input type="file" name="file" accept=".csv,text/csv" required />
          </label>
          <button type="submit">Import</button>
        </div>
        <progress id="import-progress" value="0" hidden></progress>
      </form>
      {options.report ? (
        <ImportReportView report={options.report} />
      ) : (
        <>
          <p id="import-status" role="status"></p>
          <ImportErrors errors={[]} />
        </>
      )}
      <script src="/assets/contacts-import.js" defer></script>
    </Layout>,
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

routes.get('/import', (c) => (canManage(c.var.signedIn) ? importPage(c) : c.redirect(BASE, 303)));

// Without the script: the whole file in one upload, imported in chunks before the report is shown.
// (The CSRF check has parsed the form already, so the size is checked on the file rather than by a body limit.)
routes.post('/import', async (c) => {
  const file = (await c.req.parseBody()).file;
  if (!(file instanceof File) || file.size === 0) return importPage(c, { error: 'Choose a CSV file.', status: 400 });
  if (file.size > MAX_CSV_BYTES) return importPage(c, { error: 'The file is larger than 10 MB: split it.', status: 400 });
  const [header = [], ...records] = parseCsv(await file.text());
  const report = await importRecords(c.var.deps, orgOf(c), header, records, 1);
  if (typeof report === 'string') return importPage(c, { error: report, status: 400 });
  return importPage(c, { report });
});

// With the script (contacts-import.js): one chunk of the file, its header first; the rows it did not import, as JSON.
routes.post('/import/chunk', bodyLimit({ maxSize: MAX_CSV_BYTES, onError: (c) => c.json({ message: 'The chunk is too large.' }, 413) }), async (c) => {
  const firstRow = Number(c.req.query('firstRow') ?? '1');
  const [header = [], ...records] = parseCsv(await c.req.text());
  if (!Number.isSafeInteger(firstRow) || firstRow < 1) return c.json({ message: 'firstRow must be a row number.' }, 400);
  if (records.length > MAX_BULK_CONTACTS) return c.json({ message: `Send at most ${MAX_BULK_CONTACTS} rows at a time.` }, 400);
  const report = await importRecords(c.var.deps, orgOf(c), header, records, firstRow);
  if (typeof report === 'string') return c.json({ message: report }, 400);
  return c.json({ created: report.created, errors: report.errors });
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
