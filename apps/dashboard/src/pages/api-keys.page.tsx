import { CreateApiKeyBody, type ApiKey } from '@tidings/contracts';
import { createApiKey, deleteApiKey, getApiKey, listApiKeys, rotateApiKey, setApiKeyEnabled } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { setFlash, takeFlash } from '../auth/cookies.ts';
import { showOnceAt, takeReveal, type Reveal } from '../auth/reveal.ts';
import { canManage, type DashEnv } from '../env.ts';
import { requireManager, requireSignedIn } from '../middleware/require.ts';
import { FormError, type FieldErrors } from '../views/form.tsx';
import { ConfirmPage } from '../views/confirm-page.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { render, Time } from '../views/render.tsx';
import type { DashboardPage } from './page.ts';

const BASE = '/settings/api-keys';

type Env = Context<DashEnv>;

function CreateForm({ c, errors, name }: { c: Env; errors: FieldErrors; name?: string }) {
  return (
    <section class="card create-key" aria-labelledby="create-key-title">
      <h2 id="create-key-title">New API key</h2>
      <form method="post" action={BASE}>
        <CsrfField c={c} />
        <FormError errors={errors} />
        <div class="create-row">
          <label class="grow">
            Name
            <input name="name" value={name} placeholder="e.g. Production server" required maxlength={100} aria-invalid={errors.name ? 'true' : undefined} />
            {errors.name && <small>{errors.name}</small>}
          </label>
          <label>
            Permission
            <select name="permission">
              <option value="full">Full access</option>
              <option value="sending">Sending only</option>
            </select>
          </label>
          <label>
            Mode
            <select name="mode">
              <option value="live">Live: real providers</option>
              <option value="test">Test: sandbox only</option>
            </select>
          </label>
          <button type="submit">Create API key</button>
        </div>
      </form>
    </section>
  );
}

function RevealCard({ reveal, keyName }: { reveal: Reveal; keyName: string }) {
  return (
    <article class="reveal" id="new-key-card">
      <header>
        <strong>{reveal.kind === 'created' ? `API key “${keyName}” created` : `API key “${keyName}” rotated`}</strong>
      </header>
      <p>Copy it now and store it somewhere safe. For your security it will not be shown again.</p>
      <div role="group">
        <input id="new-key" readonly value={reveal.secret} aria-label="New API key" />
        <button type="button" data-copy="#new-key">
          Copy
        </button>
      </div>
    </article>
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
    <div class="table-wrap">
      <table class="striped">
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Permission</th>
            <th>Mode</th>
            <th>Created</th>
            <th>Last used</th>
            <th>State</th>
            {manage && <th aria-label="Actions"></th>}
          </tr>
        </thead>
        <tbody>
          {keys.map((apiKey) => (
            <tr data-key-id={apiKey.id}>
              <td class="name">{apiKey.name}</td>
              <td>
                <code>{apiKey.prefix}…</code>
              </td>
              <td title={apiKey.permission === 'full' ? 'Every operation' : 'Only message.send, message.list and message.get'}>
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
        </tbody>
      </table>
    </div>
  );
}

function EmptyState({ c }: { c: Env }) {
  return (
    <article class="empty-state">
      <h3>No API keys yet</h3>
      <p>
        {canManage(c.var.signedIn)
          ? 'Create one with the form above, then call the API with it:'
          : 'An owner or operator of this organization can create one. Then call the API with it:'}
      </p>
      <pre>
        <code>{`curl -H "Authorization: Bearer sk_live_..." ${c.var.deps.config.publicApiUrl}/v1/api-keys`}</code>
      </pre>
    </article>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; name?: string; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const cursor = c.req.query('cursor') || undefined;
  const page = await listApiKeys(c.var.deps, membership.orgId, { limit: 50, offset: 0, cursor });
  const reveal = takeReveal(c, BASE);
  const revealedName = reveal && page.data.find((k) => k.id === reveal.id)?.name;
  return render(
    c,
    <Layout c={c} title="API Keys" flash={takeFlash(c)}>
      <hgroup class="page-title">
        <h1>API Keys</h1>
        <p>
          Keys authenticate calls to <code>{`${c.var.deps.config.publicApiUrl}/v1`}</code> for {membership.orgName}. A key is shown once, when it is created or
          rotated; only a hash is stored.
        </p>
      </hgroup>
      {reveal && revealedName && <RevealCard reveal={reveal} keyName={revealedName} />}
      {canManage(c.var.signedIn) ? (
        <CreateForm c={c} errors={options.errors ?? {}} name={options.name} />
      ) : (
        <p class="muted">You can see this organization's keys; owners and operators manage them.</p>
      )}
      {page.data.length === 0 ? <EmptyState c={c} /> : <KeysTable c={c} keys={page.data} />}
      {page.hasMore && (
        <a href={`${BASE}?cursor=${encodeURIComponent(page.nextCursor!)}`} role="button" class="secondary outline">
          Older keys
        </a>
      )}
    </Layout>,
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

const routes = new Hono<DashEnv>();
routes.use('*', requireSignedIn);
routes.post('*', requireManager);

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const parsed = CreateApiKeyBody.safeParse({ name: form.name, permission: form.permission, mode: form.mode });
  if (!parsed.success) {
    const errors: FieldErrors = {};
    for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? 'form')] ??= issue.path[0] === 'name' ? 'Give the key a name (up to 100 characters).' : issue.message;
    return listPage(c, { errors, name: String(form.name ?? ''), status: 400 });
  }
  const created = await createApiKey(c.var.deps, c.var.signedIn!.membership.orgId, 'live', parsed.data);
  return showOnceAt(c, BASE, { id: created.id, secret: created.key, kind: 'created' });
});

routes.get('/:id/rotate', async (c) => {
  const apiKey = await getApiKey(c.var.deps, c.var.signedIn!.membership.orgId, c.req.param('id'));
  return render(
    c,
    <ConfirmPage
      c={c}
      title={`Rotate “${apiKey.name}”`}
      subtitle={<KeySummary apiKey={apiKey} />}
      action={`${BASE}/${apiKey.id}/rotate`}
      submitLabel="Rotate key"
      back={{ href: BASE, label: 'API Keys' }}
    >
      <p>A new secret replaces this key's secret and is shown once. Update your servers with it.</p>
      <label>
        <input type="checkbox" name="immediately" value="true" role="switch" />
        Stop the old secret immediately (otherwise it keeps working for 24 hours)
      </label>
    </ConfirmPage>,
  );
});

routes.post('/:id/rotate', async (c) => {
  const form = await c.req.parseBody();
  const rotated = await rotateApiKey(c.var.deps, c.var.signedIn!.membership.orgId, c.req.param('id'), { immediately: form.immediately === 'true' });
  return showOnceAt(c, BASE, { id: rotated.id, secret: rotated.key, kind: 'rotated' });
});

for (const action of ['disable', 'enable'] as const) {
  routes.post(`/:id/${action}`, async (c) => {
    const apiKey = await setApiKeyEnabled(c.var.deps, c.var.signedIn!.membership.orgId, c.req.param('id'), action === 'enable');
    setFlash(c, `“${apiKey.name}” ${action === 'enable' ? 'is enabled again' : 'is disabled: requests with it are refused'}.`);
    return c.redirect(BASE, 303);
  });
}

routes.get('/:id/delete', async (c) => {
  const apiKey = await getApiKey(c.var.deps, c.var.signedIn!.membership.orgId, c.req.param('id'));
  return render(
    c,
    <ConfirmPage
      c={c}
      title={`Delete “${apiKey.name}”`}
      subtitle={<KeySummary apiKey={apiKey} />}
      action={`${BASE}/${apiKey.id}/delete`}
      submitLabel="Delete key for good"
      isDangerous
      back={{ href: BASE, label: 'API Keys' }}
    >
      <p>
        Requests with this key will be refused at once, and it <strong>cannot be enabled again</strong>. To pause it instead, disable it.
      </p>
    </ConfirmPage>,
  );
});

routes.post('/:id/delete', async (c) => {
  const orgId = c.var.signedIn!.membership.orgId;
  const apiKey = await getApiKey(c.var.deps, orgId, c.req.param('id'));
  await deleteApiKey(c.var.deps, orgId, apiKey.id);
  setFlash(c, `“${apiKey.name}” is deleted.`);
  return c.redirect(BASE, 303);
});

/** Settings > API Keys: list, create (shown once), rotate, disable, enable, delete; through the core functions. */
export const apiKeysPage: DashboardPage = {
  path: BASE,
  nav: { label: 'API Keys', href: BASE, section: 'settings' },
  routes,
};
