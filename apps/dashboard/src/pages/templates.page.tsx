import { TemplateChannelType, TemplateVariables, UpdateTemplateBody, type Template } from '@tidings/contracts';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, listTemplateVersions, previewTemplate, previewTemplateChanges, updateTemplate } from '@tidings/core';
import { diffLines } from 'diff';
import type { Context } from 'hono';
import { takeFlash } from '../auth/cookies.ts';
import { allowEmailStyles } from '../csp.ts';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Field, fieldErrorsOf, FormCard, FormError, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { EmptyState, OlderLink, Table } from '../views/list.tsx';
import { render, Time } from '../views/render.tsx';
import { PreviewPane, previewOf, type PreviewState } from '../views/template-preview.tsx';
import { flashRedirect, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/templates';
const PARTS = ['subject', 'html', 'text', 'body'] as const;

type Env = Context<DashEnv>;
/** The editor's fields as typed (strings), kept when a save or preview is refused so nothing typed is lost. */
type EditorInput = { name: string; subject: string; html: string; text: string; body: string; replyTo: string; variables: string };

// A new template starts with content to edit rather than an empty form that cannot be saved.
const STARTER = {
  email: { subject: 'Hello {{ firstName }}', html: '<p>Hello {{ firstName }},</p>\n<p>…</p>', text: 'Hello {{ firstName }},\n\n…' },
  sms: { body: 'Hello {{ firstName }}, …' },
} as const;

// Browsers send a textarea's line breaks as CRLF: kept, every save would change every line.
const str = (value: unknown): string => (typeof value === 'string' ? value.replace(/\r\n/g, '\n') : '');

/** What `contact.*` shows in a preview when the organization has no contact yet. */
const SAMPLE_CONTACT = { id: 'con_sample', email: 'ada@example.com', phone: '+14155550123', firstName: 'Ada', lastName: 'Lovelace', attributes: {} };
type SampleContact = typeof SAMPLE_CONTACT | { id: string; email: string | null; phone: string | null; firstName: string | null; lastName: string | null; attributes: unknown };

/**
 * Sample values the preview starts with: each variable the template uses as its own name in brackets, nested along
 * its dots (`order.number`), and `contact` as a broadcast fills it: the chosen or newest contact, else a sample one.
 */
function sampleVariables(template: Template, contact: SampleContact = SAMPLE_CONTACT): string {
  const sample: Record<string, unknown> = {};
  for (const name of template.variables) {
    const path = name.split('.');
    if (path[0] === 'contact') continue;
    let at = sample;
    for (const key of path.slice(0, -1)) {
      if (!at[key] || typeof at[key] !== 'object') at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
    at[path.at(-1)!] = `[${name}]`;
  }
  if (template.variables.some((name) => name === 'contact' || name.startsWith('contact.'))) sample.contact = { ...contact, attributes: contact.attributes ?? {} };
  return JSON.stringify(sample, null, 2);
}

/** The contact a preview fills `contact.*` from: `?contactId=` of this organization, else its newest one. */
async function sampleContactOf(c: Env): Promise<SampleContact | undefined> {
  const id = c.req.query('contactId');
  const select = { id: true, email: true, phone: true, firstName: true, lastName: true, attributes: true };
  const where = { orgId: orgOf(c), ...(id ? { id } : {}) };
  return (await c.var.deps.db.contact.findFirst({ where, select, orderBy: { createdAt: 'desc' } })) ?? undefined;
}

function inputOf(template: Template, contact?: SampleContact): EditorInput {
  return {
    name: template.name,
    subject: template.subject ?? '',
    html: template.html ?? '',
    text: template.text ?? '',
    body: template.body ?? '',
    replyTo: template.replyTo.join(', '),
    variables: sampleVariables(template, contact),
  };
}

async function readInput(c: Env): Promise<EditorInput> {
  const form = await c.req.parseBody();
  return {
    name: str(form.name),
    subject: str(form.subject),
    html: str(form.html),
    text: str(form.text),
    body: str(form.body),
    replyTo: str(form.replyTo),
    variables: str(form.variables),
  };
}

/** The editor's content as template.update changes; an emptied html or text part is removed (null). */
function changesOf(template: Template, input: EditorInput): Record<string, unknown> {
  if (template.channelType === 'sms') return { name: input.name, body: input.body };
  const replyTo = input.replyTo
    .split(/[,\n]/)
    .map((address) => address.trim())
    .filter(Boolean);
  return { name: input.name, subject: input.subject, html: input.html || null, text: input.text || null, replyTo: replyTo.length ? replyTo : null };
}

/** The sample variables as template.preview takes them, or the reason they are not. */
function parseVariables(json: string): { variables: TemplateVariables } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(json.trim() || '{}');
  } catch {
    return { error: 'Sample variables: not valid JSON.' };
  }
  const parsed = TemplateVariables.safeParse(value);
  if (!parsed.success) return { error: `Sample variables: ${parsed.error.issues[0]?.message ?? 'expected a JSON object'}.` };
  return { variables: parsed.data };
}

function ChannelBadge({ channelType }: { channelType: string }) {
  return <span class="badge">{channelType === 'email' ? 'Email' : 'SMS'}</span>;
}

function CreateForm({ c, errors, name }: { c: Env; errors: FieldErrors; name?: string }) {
  return (
    <FormCard c={c} id="create-template-title" title="New template" action={BASE} errors={errors}>
      <div class="create-row">
        <Field class="grow" name="name" label="Name" errors={errors} value={name} placeholder="e.g. welcome-email" maxlength={200} required />
        <label>
          Channel
          <select name="channelType">
            <option value="email">Email</option>
            <option value="sms">SMS</option>
          </select>
        </label>
        <button type="submit">Create template</button>
      </div>
    </FormCard>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; name?: string; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const page = await listTemplates(c.var.deps, membership.orgId, { ...pageQuery(c), includeDeleted: false });
  return render(
    c,
    <Layout c={c} title="Templates" flash={takeFlash(c)}>
      <hgroup class="page-title">
        <h1>Templates</h1>
        <p>
          Reusable emails and SMS of {membership.orgName}, with <code>{'{{ placeholders }}'}</code> filled in at send time. Every save is a new version; messages keep the version
          they were sent with.
        </p>
      </hgroup>
      {canManage(c.var.signedIn) ? (
        <CreateForm c={c} errors={options.errors ?? {}} name={options.name} />
      ) : (
        <p class="muted">You can see this organization's templates; owners and operators edit them.</p>
      )}
      {page.data.length === 0 ? (
        <EmptyState title="No templates yet">
          <p>Create one to send it by id from the API, or to a segment as a broadcast.</p>
        </EmptyState>
      ) : (
        <Table headers={['Name', 'Channel', 'Version', 'Variables', 'Updated']}>
          {page.data.map((template) => (
            <tr data-template-id={template.id}>
              <td class="name">
                <a href={`${BASE}/${template.id}`}>{template.name}</a>
              </td>
              <td>
                <ChannelBadge channelType={template.channelType} />
              </td>
              <td>v{template.version}</td>
              <td>
                {template.variables.map((name) => (
                  <code class="chip">{name}</code>
                ))}
              </td>
              <td>
                <Time at={template.updatedAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <OlderLink base={BASE} page={page} label="Older templates" />
    </Layout>,
    options.status ?? 200,
  );
}

function TextArea({ name, label, value, rows, errors, hint }: { name: string; label: string; value: string; rows: number; errors: FieldErrors; hint?: string }) {
  const error = errors[name];
  return (
    <label>
      {label}
      <textarea name={name} rows={rows} class="code" aria-invalid={error ? 'true' : undefined} aria-describedby={error || hint ? `${name}-help` : undefined}>
        {value}
      </textarea>
      {(error || hint) && <small id={`${name}-help`}>{error ?? hint}</small>}
    </label>
  );
}

function EditorForm({ c, template, input, errors }: { c: Env; template: Template; input: EditorInput; errors: FieldErrors }) {
  const isManager = canManage(c.var.signedIn);
  return (
    <form method="post" action={`${BASE}/${template.id}`} class="card template-editor" data-live-preview={isManager ? `${BASE}/${template.id}/preview` : undefined}>
      <CsrfField c={c} />
      <FormError errors={errors} />
      <fieldset disabled={!isManager}>
        <Field name="name" label="Name" errors={errors} value={input.name} maxlength={200} required />
        {template.channelType === 'email' ? (
          <>
            <Field name="subject" label="Subject" errors={errors} value={input.subject} required />
            <TextArea name="html" label="HTML" value={input.html} rows={10} errors={errors} hint="Placeholder values are HTML-escaped." />
            <TextArea name="text" label="Text part" value={input.text} rows={5} errors={errors} />
            <Field name="replyTo" label="Reply-To" errors={errors} value={input.replyTo} placeholder="optional; several separated by commas" />
          </>
        ) : (
          <TextArea name="body" label="Message" value={input.body} rows={5} errors={errors} />
        )}
        <TextArea name="variables" label="Sample variables (JSON)" value={input.variables} rows={4} errors={errors} hint="Only for the preview; nothing is saved or sent." />
      </fieldset>
      {isManager && (
        <div class="actions">
          <button type="submit">Save as version {template.version + 1}</button>
          <button type="submit" class="secondary outline" formaction={`${BASE}/${template.id}/preview`}>
            Preview
          </button>
        </div>
      )}
    </form>
  );
}

function editorPage(c: Env, template: Template, options: { input?: EditorInput; errors?: FieldErrors; preview: PreviewState; status?: 200 | 400; contact?: SampleContact }) {
  allowEmailStyles(c);
  return render(
    c,
    <Layout c={c} title={template.name} flash={takeFlash(c)}>
      <a href={BASE} class="back">
        ← Templates
      </a>
      <hgroup class="page-title">
        <h1 class="break">{template.name}</h1>
        <p>
          <ChannelBadge channelType={template.channelType} /> version {template.version}, saved <Time at={template.updatedAt} /> · <code>{template.id}</code>
        </p>
      </hgroup>
      <div class="actions page-actions">
        <a href={`${BASE}/${template.id}/versions`} role="button" class="secondary outline">
          Version history
        </a>
        {canManage(c.var.signedIn) && (
          <a href={`${BASE}/${template.id}/delete`} role="button" class="outline danger-outline">
            Delete…
          </a>
        )}
      </div>
      <div class="editor-grid">
        <EditorForm c={c} template={template} input={options.input ?? inputOf(template, options.contact)} errors={options.errors ?? {}} />
        <PreviewPane state={options.preview} />
      </div>
    </Layout>,
    options.status ?? 200,
  );
}

const loadTemplate = (c: Env) => getTemplate(c.var.deps, orgOf(c), c.req.param('id')!, {});

/** The editor's content checked as template.update checks it, or its errors by field. */
function parseChanges(template: Template, input: EditorInput): { changes: UpdateTemplateBody } | { errors: FieldErrors } {
  const parsed = UpdateTemplateBody.safeParse(changesOf(template, input));
  return parsed.success ? { changes: parsed.data } : { errors: zodFieldErrors(parsed.error.issues) };
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const name = str(form.name).trim();
  const channelType = TemplateChannelType.safeParse(form.channelType);
  if (!name) return listPage(c, { errors: { name: 'Give the template a name.' }, name, status: 400 });
  if (!channelType.success) return listPage(c, { errors: { form: 'Choose email or SMS.' }, name, status: 400 });
  try {
    const created = await createTemplate(c.var.deps, orgOf(c), { name, channelType: channelType.data, ...STARTER[channelType.data] });
    return flashRedirect(c, 'Template created with sample content: edit it below, then save.', `${BASE}/${created.id}`);
  } catch (error) {
    return listPage(c, { errors: fieldErrorsOf(error, ['name']), name, status: 400 });
  }
});

routes.get('/:id', async (c) => {
  const template = await loadTemplate(c);
  const contact = await sampleContactOf(c);
  const variables = parseVariables(sampleVariables(template, contact));
  const preview = await previewOf(() => previewTemplate(c.var.deps, orgOf(c), template.id, { variables: 'variables' in variables ? variables.variables : {} }));
  return editorPage(c, template, { preview, contact });
});

routes.post('/:id/preview', async (c) => {
  const template = await loadTemplate(c);
  const input = await readInput(c);
  const parsed = parseChanges(template, input);
  const variables = parseVariables(input.variables);
  if ('errors' in parsed)
    return editorPage(c, template, { input, errors: parsed.errors, preview: { error: 'Correct the fields marked in the form to see a preview.' }, status: 400 });
  if ('error' in variables) return editorPage(c, template, { input, preview: variables, status: 400 });
  const preview = await previewOf(() => previewTemplateChanges(c.var.deps, orgOf(c), template.id, parsed.changes, variables.variables));
  return editorPage(c, template, { input, preview, status: 'error' in preview ? 400 : 200 });
});

routes.post('/:id', async (c) => {
  const template = await loadTemplate(c);
  const input = await readInput(c);
  const parsed = parseChanges(template, input);
  const refuse = (errors: FieldErrors) => editorPage(c, template, { input, errors, preview: { error: 'Not saved: correct the fields marked in the form.' }, status: 400 });
  if ('errors' in parsed) return refuse(parsed.errors);
  const { changes } = parsed;
  const isUnchanged =
    (changes.name ?? template.name) === template.name &&
    PARTS.every((part) => (changes[part] === undefined ? true : changes[part] === template[part])) &&
    (changes.replyTo === undefined || JSON.stringify(changes.replyTo ?? []) === JSON.stringify(template.replyTo));
  if (isUnchanged) return flashRedirect(c, `Nothing changed: version ${template.version} is still the latest.`, `${BASE}/${template.id}`);
  try {
    const saved = await updateTemplate(c.var.deps, orgOf(c), template.id, changes);
    return flashRedirect(c, `Saved as version ${saved.version}. Sends that name no version use it from now on.`, `${BASE}/${saved.id}`);
  } catch (error) {
    return refuse(fieldErrorsOf(error, ['name', ...PARTS, 'replyTo']));
  }
});

// Each side ends its last line, so a line added at the end does not show the line before it as changed.
const asLines = (text: string | null): string => (!text || text.endsWith('\n') ? (text ?? '') : `${text}\n`);

/** One part of two versions, line by line: removed lines struck out, added ones marked; nothing when it is the same. */
function PartDiff({ label, before, after }: { label: string; before: string | null; after: string | null }) {
  if ((before ?? '') === (after ?? '')) return null;
  return (
    <section class="diff-part" data-part={label}>
      <h3 class="part-heading">{label}</h3>
      <pre class="diff">
        {diffLines(asLines(before), asLines(after)).map((change) =>
          change.added ? <ins>{change.value}</ins> : change.removed ? <del>{change.value}</del> : <span>{change.value}</span>,
        )}
      </pre>
    </section>
  );
}

function VersionDiff({ from, to }: { from: Template; to: Template }) {
  const parts = [
    ['Subject', from.subject, to.subject],
    ['HTML', from.html, to.html],
    ['Text part', from.text, to.text],
    ['Message', from.body, to.body],
    ['Reply-To', from.replyTo.join('\n'), to.replyTo.join('\n')],
  ] as const;
  const isSame = parts.every(([, before, after]) => (before ?? '') === (after ?? ''));
  return (
    <section class="card" id="version-diff" aria-labelledby="diff-title">
      <h2 id="diff-title">
        Changes from version {from.version} to version {to.version}
      </h2>
      {isSame ? <p class="muted">The content of the two versions is the same.</p> : parts.map(([label, before, after]) => <PartDiff label={label} before={before} after={after} />)}
    </section>
  );
}

/** A version number from the address, or null when it is absent or not one. */
function versionParam(c: Env, name: string): number | null {
  const value = Number(c.req.query(name));
  return Number.isInteger(value) && value >= 1 && value <= 2_147_483_647 ? value : null;
}

routes.get('/:id/versions', async (c) => {
  const template = await loadTemplate(c);
  const page = await listTemplateVersions(c.var.deps, orgOf(c), template.id, pageQuery(c));
  const to = versionParam(c, 'to') ?? template.version;
  const from = versionParam(c, 'from') ?? Math.max(1, to - 1);
  const pair = from !== to ? await Promise.all([from, to].map((version) => getTemplate(c.var.deps, orgOf(c), template.id, { version }))) : null;
  return render(
    c,
    <Layout c={c} title={`Versions of ${template.name}`}>
      <a href={`${BASE}/${template.id}`} class="back">
        ← {template.name}
      </a>
      <hgroup class="page-title">
        <h1 class="break">Versions of {template.name}</h1>
        <p>Every save is kept: messages sent with an older version show what they were sent with.</p>
      </hgroup>
      {pair && <VersionDiff from={pair[0]!} to={pair[1]!} />}
      <form method="get" action={`${BASE}/${template.id}/versions`} class="card create-row">
        <label>
          Compare version
          <input type="number" name="from" min={1} max={template.version} value={String(from)} required />
        </label>
        <label>
          with version
          <input type="number" name="to" min={1} max={template.version} value={String(to)} required />
        </label>
        <button type="submit" class="secondary">
          Compare
        </button>
      </form>
      <Table headers={['Version', 'Saved', 'Variables', 'Changes']}>
        {page.data.map((version) => (
          <tr data-version={version.version}>
            <td class="name">v{version.version}</td>
            <td>
              <Time at={version.updatedAt} />
            </td>
            <td>
              {version.variables.map((name) => (
                <code class="chip">{name}</code>
              ))}
            </td>
            <td>{version.version > 1 && <a href={`${BASE}/${template.id}/versions?from=${version.version - 1}&to=${version.version}`}>Compare with v{version.version - 1}</a>}</td>
          </tr>
        ))}
      </Table>
      <OlderLink base={`${BASE}/${template.id}/versions`} page={page} label="Older versions" />
    </Layout>,
  );
});

confirmedAction(routes, 'delete', {
  load: loadTemplate,
  ask: (template) => ({
    title: 'Delete this template',
    subtitle: <strong>{template.name}</strong>,
    submitLabel: 'Delete template',
    isDangerous: true,
    back: { href: `${BASE}/${template.id}`, label: template.name },
    children: (
      <p>
        Sends and new broadcasts with it are refused from now on. Its versions are kept, so messages already sent with it still show what they were sent with; the API can still
        read it with <code>includeDeleted</code>.
      </p>
    ),
  }),
  act: async (c, template) => {
    await deleteTemplate(c.var.deps, orgOf(c), template.id);
    return flashRedirect(c, `The template “${template.name}” is deleted.`, BASE);
  },
});

/** Templates: list, create, the editor with its preview, version history with the changes between two versions, delete. */
export const templatesPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Templates', href: BASE, section: 'main' },
  routes,
};
