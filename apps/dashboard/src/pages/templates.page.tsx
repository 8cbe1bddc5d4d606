import { TemplateChannelType, type Template } from '@tidings/contracts';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  listTemplateVersions,
  previewContact,
  previewTemplate,
  previewTemplateChanges,
  updateTemplate,
} from '@tidings/core';
import type { Context } from 'hono';
import { allowEmailStyles } from '../csp.ts';
import { canManage, type DashEnv } from '../env.ts';
import { aboutItem, confirmedAction } from '../views/confirm-page.tsx';
import { Field, fieldErrorsOf, FormCard, readFields, type FieldErrors } from '../views/form.tsx';
import { OlderLink, PagedList, Table } from '../views/list.tsx';
import { DetailPage, ForManagers, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { ChannelBadge, EditorForm, inputOf, parseChanges, parseVariables, readInput, sampleVariables, type EditorInput, type SampleContact } from '../views/template-editor.tsx';
import { PreviewPane, previewOf, type PreviewState } from '../views/template-preview.tsx';
import { VersionDiff } from '../views/version-diff.tsx';
import { flashRedirect, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/templates';
const PARTS = ['subject', 'html', 'text', 'body'] as const;

type Env = Context<DashEnv>;

// A new template starts with content to edit rather than an empty form that cannot be saved.
const STARTER = {
  email: { subject: 'Hello {{ firstName }}', html: '<p>Hello {{ firstName }},</p>\n<p>…</p>', text: 'Hello {{ firstName }},\n\n…' },
  sms: { body: 'Hello {{ firstName }}, …' },
} as const;

/** The contact a preview fills `contact.*` from: `?contactId=` of this organization, else its newest one. */
async function sampleContactOf(c: Env): Promise<SampleContact | undefined> {
  return previewContact(c.var.deps, orgOf(c), c.req.query('contactId'));
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
    <TitledPage
      c={c}
      title="Templates"
      intro={
        <>
          Reusable emails and SMS of {membership.orgName}, with <code>{'{{ placeholders }}'}</code> filled in at send time. Every save is a new version; messages keep the version
          they were sent with.
        </>
      }
    >
      <ForManagers c={c} readerNote="You can see this organization's templates; owners and operators edit them.">
        <CreateForm c={c} errors={options.errors ?? {}} name={options.name} />
      </ForManagers>
      <PagedList
        base={BASE}
        page={page}
        empty={{ title: 'No templates yet', hint: <p>Create one to send it by id from the API, or to a segment as a broadcast.</p> }}
        olderLabel="Older templates"
      >
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
                <VariableChips names={template.variables} />
              </td>
              <td>
                <Time at={template.updatedAt} />
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
    </TitledPage>,
    options.status ?? 200,
  );
}

/** The variables a template version uses, as chips. */
function VariableChips({ names }: { names: string[] }) {
  return (
    <>
      {names.map((name) => (
        <code class="chip">{name}</code>
      ))}
    </>
  );
}

function editorPage(c: Env, template: Template, options: { input?: EditorInput; errors?: FieldErrors; preview: PreviewState; status?: 200 | 400; contact?: SampleContact }) {
  allowEmailStyles(c);
  return render(
    c,
    <DetailPage
      c={c}
      title={template.name}
      isTitleLong
      back={{ href: BASE, label: 'Templates' }}
      subtitle={
        <>
          <ChannelBadge channelType={template.channelType} /> version {template.version}, saved <Time at={template.updatedAt} /> · <code>{template.id}</code>
        </>
      }
    >
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
    </DetailPage>,
    options.status ?? 200,
  );
}

const loadTemplate = (c: Env) => getTemplate(c.var.deps, orgOf(c), c.req.param('id')!, {});

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const { name, channelType: channel } = await readFields(c, ['name', 'channelType']);
  const channelType = TemplateChannelType.safeParse(channel);
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
  const preview = await previewOf(() => previewTemplateChanges(c.var.deps, orgOf(c), template.id, { changes: parsed.changes, variables: variables.variables }));
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
    <DetailPage
      c={c}
      title={`Versions of ${template.name}`}
      isTitleLong
      showsNotice={false}
      back={{ href: `${BASE}/${template.id}`, label: template.name }}
      subtitle="Every save is kept: messages sent with an older version show what they were sent with."
    >
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
              <VariableChips names={version.variables} />
            </td>
            <td>{version.version > 1 && <a href={`${BASE}/${template.id}/versions?from=${version.version - 1}&to=${version.version}`}>Compare with v{version.version - 1}</a>}</td>
          </tr>
        ))}
      </Table>
      <OlderLink base={`${BASE}/${template.id}/versions`} page={page} label="Older versions" />
    </DetailPage>,
  );
});

confirmedAction(routes, 'delete', {
  load: loadTemplate,
  ask: (template) => ({
    title: 'Delete this template',
    ...aboutItem(template.name, `${BASE}/${template.id}`),
    submitLabel: 'Delete template',
    isDangerous: true,
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
