import { hasLiveProvider } from '@tidings/config';
import { CreateApiKeyBody, type ApiKey } from '@tidings/contracts';
import { areLiveKeysAllowed, type AppError, createApiKey, deleteApiKey, getApiKey, listApiKeys, rotateApiKey, setApiKeyEnabled } from '@tidings/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { showOnceAt, takeReveal, type Reveal } from '../auth/reveal.ts';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Field, fieldErrorsOf, FormCard, type FieldErrors } from '../views/form.tsx';
import { CsrfField } from '../views/layout.tsx';
import { EmptyState, OlderLink, Table } from '../views/list.tsx';
import { ForManagers, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { RevealCard } from '../views/reveal-card.tsx';
import { SmtpSettings } from '../views/smtp-settings.tsx';
import { flashRedirect, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/settings/api-keys';

type Env = Context<DashEnv>;

/** Why the dashboard offers no live key to an organization created with `tidings orgs create --test`. */
const TEST_ORG_HELP = 'This organization was created for testing: it gets test keys only. An operator can allow live keys with "tidings orgs allow-live <orgId>".';

function CreateForm({ c, errors, name, liveKeysAllowed }: { c: Env; errors: FieldErrors; name?: string; liveKeysAllowed: boolean }) {
  // without a live provider a live key cannot send for real: Test comes first and says why
  const isLiveUseful = liveKeysAllowed && hasLiveProvider(c.var.deps.config);
  return (
    <FormCard c={c} id="create-key-title" title="New API key" action={BASE} errors={errors}>
      <div class="create-row">
        <Field class="grow" name="name" label="Name" errors={errors} value={name} placeholder="e.g. Production server" required maxlength={100} />
        <label>
          Permission
          <select name="permission">
            <option value="full">Full access</option>
            <option value="sending">Sending only</option>
          </select>
        </label>
        <label>
          Mode
          <select name="mode" aria-describedby="mode-help">
            {liveKeysAllowed && (
              <option value="live" selected={isLiveUseful}>
                Live: real providers
              </option>
            )}
            <option value="test" selected={!isLiveUseful}>
              Test: sandbox only
            </option>
          </select>
          {!liveKeysAllowed ? (
            <small id="mode-help">{TEST_ORG_HELP}</small>
          ) : isLiveUseful ? null : (
            <small id="mode-help">No live provider is configured: a live key needs a verified domain and a provider's credentials to send.</small>
          )}
        </label>
        <button type="submit">Create API key</button>
      </div>
    </FormCard>
  );
}

function NewKeyCard({ reveal, keyName }: { reveal: Reveal; keyName: string }) {
  return (
    <RevealCard
      id="new-key-card"
      title={reveal.kind === 'created' ? `API key “${keyName}” created` : `API key “${keyName}” rotated`}
      inputId="new-key"
      value={reveal.secret}
      label="New API key"
    >
      <p>Copy it now and store it somewhere safe. For your security it will not be shown again.</p>
      <p>
        It is also the password of the <a href="#smtp-settings">SMTP settings</a> below.
      </p>
    </RevealCard>
  );
}

function StateBadge({ apiKey }: { apiKey: ApiKey }) {
  return (
    <>
      <span class={`badge ${apiKey.state}`}>{apiKey.state === 'enabled' ? 'Enabled' : 'Disabled'}</span>
      {apiKey.previousKeyExpiresAt && (
        <small class="muted block">
          old secret valid until <Time at={apiKey.previousKeyExpiresAt} />
        </small>
      )}
    </>
  );
}

function KeyActions({ c, apiKey }: { c: Env; apiKey: ApiKey }) {
  const toggle = apiKey.state === 'enabled' ? 'disable' : 'enable';
  return (
    <div class="actions">
      <a href={`${BASE}/${apiKey.id}/rotate`} role="button" class="secondary outline small">
        Rotate
      </a>
      <form method="post" action={`${BASE}/${apiKey.id}/${toggle}`}>
        <CsrfField c={c} />
        <button type="submit" class="secondary outline small">
          {toggle === 'disable' ? 'Disable' : 'Enable'}
        </button>
      </form>
      <a href={`${BASE}/${apiKey.id}/delete`} role="button" class="outline small danger-outline">
        Delete
      </a>
    </div>
  );
}

function KeysTable({ c, keys }: { c: Env; keys: ApiKey[] }) {
  const manage = canManage(c.var.signedIn);
  return (
    <Table headers={['Name', 'Key', 'Permission', 'Mode', 'Created', 'Last used', 'State']} hasActions={manage}>
      {keys.map((apiKey) => (
        <tr data-key-id={apiKey.id}>
          <td class="name">{apiKey.name}</td>
          <td>
            <code>{apiKey.prefix}…</code>
          </td>
          <td title={apiKey.permission === 'full' ? 'Every operation' : 'Only message.send, message.sendBatch, message.list, message.get and message.cancel'}>
            {apiKey.permission === 'full' ? 'Full' : 'Sending'}
          </td>
          <td>
            <span class={`badge ${apiKey.mode}`}>{apiKey.mode}</span>
          </td>
          <td>
            <Time at={apiKey.createdAt} />
          </td>
          <td>
            <Time at={apiKey.lastUsedAt} empty="Never" />
          </td>
          <td>
            <StateBadge apiKey={apiKey} />
          </td>
          {manage && (
            <td>
              <KeyActions c={c} apiKey={apiKey} />
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

function NoKeys({ c }: { c: Env }) {
  return (
    <EmptyState title="No API keys yet">
      <p>
        {canManage(c.var.signedIn)
          ? 'Create one with the form above, then call the API with it:'
          : 'An owner or operator of this organization can create one. Then call the API with it:'}
      </p>
      <pre>
        <code>{`curl -H "Authorization: Bearer sk_live_..." ${c.var.deps.config.publicApiUrl}/v1/api-keys`}</code>
      </pre>
    </EmptyState>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; name?: string; status?: ContentfulStatusCode } = {}) {
  const { membership } = c.var.signedIn!;
  // people act for the whole organization: they see and manage keys of both modes
  const page = await listApiKeys(c.var.deps, membership.orgId, 'live', pageQuery(c));
  const liveKeysAllowed = await areLiveKeysAllowed(c.var.deps, membership.orgId);
  const reveal = takeReveal(c, BASE);
  const revealedName = reveal && page.data.find((k) => k.id === reveal.id)?.name;
  return render(
    c,
    <TitledPage
      c={c}
      title="API Keys"
      intro={
        <>
          Keys authenticate calls to <code>{`${c.var.deps.config.publicApiUrl}/v1`}</code> for {membership.orgName}. A key is shown once, when it is created or rotated; only a hash
          is stored.
        </>
      }
    >
      {reveal && revealedName && <NewKeyCard reveal={reveal} keyName={revealedName} />}
      <ForManagers c={c} readerNote="You can see this organization's keys; owners and operators manage them.">
        <CreateForm c={c} errors={options.errors ?? {}} name={options.name} liveKeysAllowed={liveKeysAllowed} />
      </ForManagers>
      {page.data.length === 0 ? <NoKeys c={c} /> : <KeysTable c={c} keys={page.data} />}
      <OlderLink base={BASE} page={page} label="Older keys" />
      <SmtpSettings settings={c.var.deps.config.smtpSubmission} />
    </TitledPage>,
    options.status ?? 200,
  );
}

function KeySummary({ apiKey }: { apiKey: ApiKey }) {
  return (
    <>
      <code>{apiKey.prefix}…</code> · {apiKey.permission === 'full' ? 'Full access' : 'Sending only'} · {apiKey.mode}
    </>
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const parsed = CreateApiKeyBody.safeParse({ name: form.name, permission: form.permission, mode: form.mode });
  if (!parsed.success) {
    const errors: FieldErrors = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? 'form')] ??= issue.path[0] === 'name' ? 'Give the key a name (up to 100 characters).' : issue.message;
    return listPage(c, { errors, name: String(form.name ?? ''), status: 400 });
  }
  let created: Awaited<ReturnType<typeof createApiKey>>;
  try {
    created = await createApiKey(c.var.deps, orgOf(c), 'live', parsed.data);
  } catch (error) {
    // a test organization asking for a live key, or the key cap: said on the form, like a validation error
    const errors = fieldErrorsOf(error, []);
    return listPage(c, { errors, name: String(form.name ?? ''), status: (error as AppError).status as ContentfulStatusCode });
  }
  return showOnceAt(c, BASE, { id: created.id, secret: created.key, kind: 'created' });
});

const loadKey = (c: Env) => getApiKey(c.var.deps, orgOf(c), 'live', c.req.param('id')!);

confirmedAction(routes, 'rotate', {
  load: loadKey,
  ask: (apiKey) => ({
    title: `Rotate “${apiKey.name}”`,
    subtitle: <KeySummary apiKey={apiKey} />,
    submitLabel: 'Rotate key',
    back: { href: BASE, label: 'API Keys' },
    children: (
      <>
        <p>A new secret replaces this key's secret and is shown once. Update your servers with it.</p>
        <label>
          <input type="checkbox" name="immediately" value="true" role="switch" aria-checked="false" />
          Stop the old secret immediately (otherwise it keeps working for 24 hours)
        </label>
      </>
    ),
  }),
  act: async (c, apiKey) => {
    const form = await c.req.parseBody();
    const rotated = await rotateApiKey({ deps: c.var.deps, orgId: orgOf(c), mode: 'live' }, apiKey.id, { immediately: form.immediately === 'true' });
    return showOnceAt(c, BASE, { id: rotated.id, secret: rotated.key, kind: 'rotated' });
  },
});

for (const action of ['disable', 'enable'] as const) {
  routes.post(`/:id/${action}`, async (c) => {
    const apiKey = await setApiKeyEnabled({ deps: c.var.deps, orgId: orgOf(c), mode: 'live' }, c.req.param('id'), action === 'enable');
    return flashRedirect(c, `“${apiKey.name}” ${action === 'enable' ? 'is enabled again' : 'is disabled: requests with it are refused'}.`, BASE);
  });
}

confirmedAction(routes, 'delete', {
  load: loadKey,
  ask: (apiKey) => ({
    title: `Delete “${apiKey.name}”`,
    subtitle: <KeySummary apiKey={apiKey} />,
    submitLabel: 'Delete key for good',
    isDangerous: true,
    back: { href: BASE, label: 'API Keys' },
    children: (
      <p>
        Requests with this key will be refused at once, and it <strong>cannot be enabled again</strong>. To pause it instead, disable it.
      </p>
    ),
  }),
  act: async (c, apiKey) => {
    await deleteApiKey(c.var.deps, orgOf(c), 'live', apiKey.id);
    return flashRedirect(c, `“${apiKey.name}” is deleted.`, BASE);
  },
});

/** Settings > API Keys: list, create (shown once), rotate, disable, enable, delete; through the core functions. */
export const apiKeysPage: DashboardPage = {
  path: BASE,
  nav: { label: 'API Keys', href: BASE, section: 'settings' },
  routes,
};
