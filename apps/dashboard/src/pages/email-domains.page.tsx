import { AddEmailDomainBody, SetDefaultSenderBody, type DnsRecord, type EmailDomain } from '@tidings/contracts';
import { addEmailDomain, deleteEmailDomain, getEmailDomain, listEmailDomains, setDefaultSender, verifyEmailDomain } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { setFlash, takeFlash } from '../auth/cookies.ts';
import { canManage, type DashEnv } from '../env.ts';
import { requireManager, requireSignedIn } from '../middleware/require.ts';
import { ConfirmPage } from '../views/confirm-page.tsx';
import { Field, fieldErrorsOf, FormError, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { render, Time } from '../views/render.tsx';
import type { DashboardPage } from './page.ts';

const BASE = '/domains';

type Env = Context<DashEnv>;
type SenderInput = { fromName?: string; fromAddress?: string; replyTo?: string };

const orgOf = (c: Env) => c.var.signedIn!.membership.orgId;

function StatusBadge({ status }: { status: EmailDomain['status'] | DnsRecord['status'] }) {
  return <span class={`badge ${status}`}>{status}</span>;
}

function AddForm({ c, errors, name }: { c: Env; errors: FieldErrors; name?: string }) {
  return (
    <section class="card" aria-labelledby="add-domain-title">
      <h2 id="add-domain-title">Add a domain</h2>
      <form method="post" action={BASE}>
        <CsrfField c={c} />
        <FormError errors={errors} />
        <div class="create-row">
          <label class="grow">
            Domain
            <input name="name" value={name} placeholder="example.com or mail.example.com" required maxlength={253} aria-invalid={errors.name ? 'true' : undefined} />
            {errors.name && <small>{errors.name}</small>}
          </label>
          <button type="submit">Add domain</button>
        </div>
      </form>
    </section>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; name?: string; status?: 200 | 400 | 409 } = {}) {
  const { membership } = c.var.signedIn!;
  const cursor = c.req.query('cursor') || undefined;
  const page = await listEmailDomains(c.var.deps, membership.orgId, { limit: 50, offset: 0, cursor });
  return render(
    c,
    <Layout c={c} title="Domains" flash={takeFlash(c)}>
      <hgroup class="page-title">
        <h1>Email domains</h1>
        <p>Domains {membership.orgName} sends email from. Publish the DNS records of a domain, then verify it; mail goes out only from verified domains.</p>
      </hgroup>
      {canManage(c.var.signedIn) ? (
        <AddForm c={c} errors={options.errors ?? {}} name={options.name} />
      ) : (
        <p class="muted">You can see this organization's domains; owners and operators manage them.</p>
      )}
      {page.data.length === 0 ? (
        <article class="empty-state">
          <h3>No domains yet</h3>
          <p>Add the domain your mail should come from; you will get the DNS records to publish.</p>
        </article>
      ) : (
        <div class="table-wrap">
          <table class="striped">
            <thead>
              <tr>
                <th>Domain</th>
                <th>Status</th>
                <th>Default sender</th>
                <th>Last checked</th>
                <th>Added</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((domain) => (
                <tr data-domain-id={domain.id}>
                  <td class="name">
                    <a href={`${BASE}/${domain.id}`}>{domain.name}</a>
                  </td>
                  <td>
                    <StatusBadge status={domain.status} />
                  </td>
                  <td>{domain.defaultSender ? <code>{domain.defaultSender.fromAddress}</code> : <span class="muted">—</span>}</td>
                  <td>
                    <Time at={domain.lastCheckedAt} empty="Never" />
                  </td>
                  <td>
                    <Time at={domain.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.hasMore && (
        <a href={`${BASE}?cursor=${encodeURIComponent(page.nextCursor!)}`} role="button" class="secondary outline">
          Older domains
        </a>
      )}
    </Layout>,
    options.status ?? 200,
  );
}

/** A read-only value with a copy button (app.js copies the input's value). */
function CopyField({ id, value, label }: { id: string; value: string; label: string }) {
  return (
    <div role="group" class="copy-field">
      <input id={id} readonly value={value} aria-label={label} />
      <button type="button" class="secondary outline" data-copy={`#${id}`}>
        Copy
      </button>
    </div>
  );
}

const PURPOSES: Record<DnsRecord['purpose'], string> = { spf: 'SPF', dkim: 'DKIM', dmarc: 'DMARC', returnPath: 'Return path' };

function RecordsTable({ records }: { records: DnsRecord[] }) {
  return (
    <div class="table-wrap">
      <table class="records">
        <thead>
          <tr>
            <th>Purpose</th>
            <th>Type</th>
            <th>Name</th>
            <th>Value</th>
            <th>Priority</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record, i) => (
            <tr data-purpose={record.purpose}>
              <td>
                {PURPOSES[record.purpose]}
                {!record.required && <small class="muted block">recommended</small>}
              </td>
              <td>
                <code>{record.type}</code>
              </td>
              <td>
                <CopyField id={`record-${i}-name`} value={record.name} label={`${PURPOSES[record.purpose]} record name`} />
              </td>
              <td>
                <CopyField id={`record-${i}-value`} value={record.value} label={`${PURPOSES[record.purpose]} record value`} />
              </td>
              <td>{record.priority ?? <span class="muted">—</span>}</td>
              <td>
                <StatusBadge status={record.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SenderForm({ c, domain, errors, input }: { c: Env; domain: EmailDomain; errors: FieldErrors; input: SenderInput }) {
  return (
    <form method="post" action={`${BASE}/${domain.id}/default-sender`} class="card">
      <h2>Default sender</h2>
      <p class="muted">Used when a message to send has no <code>from</code>. The address must be on {domain.name}.</p>
      <CsrfField c={c} />
      <FormError errors={errors} />
      <div class="grid">
        <Field name="fromName" label="From name" errors={errors} value={input.fromName} required />
        <Field name="fromAddress" label="From address" type="email" errors={errors} value={input.fromAddress} required hint={`e.g. hello@${domain.name}`} />
        <Field name="replyTo" label="Reply-to (optional)" type="email" errors={errors} value={input.replyTo} />
      </div>
      <button type="submit">Save default sender</button>
    </form>
  );
}

async function detailPage(c: Env, id: string, options: { errors?: FieldErrors; sender?: SenderInput; status?: 200 | 400 } = {}) {
  const domain = await getEmailDomain(c.var.deps, orgOf(c), id);
  const manage = canManage(c.var.signedIn);
  const current = domain.defaultSender;
  const sender = options.sender ?? { fromName: current?.fromName ?? '', fromAddress: current?.fromAddress ?? '', replyTo: current?.replyTo ?? '' };
  return render(
    c,
    <Layout c={c} title={domain.name} flash={takeFlash(c)}>
      <a href={BASE} class="back">
        ← Domains
      </a>
      <hgroup class="page-title">
        <h1>{domain.name}</h1>
        <p>
          <StatusBadge status={domain.status} /> Last checked <Time at={domain.lastCheckedAt} empty="never" />
          {domain.verifiedAt && (
            <>
              {' '}
              · verified <Time at={domain.verifiedAt} />
            </>
          )}
        </p>
      </hgroup>
      <h2 class="section-heading">DNS records</h2>
      <p class="muted">
        Publish these at your DNS host, then verify. Checking can take a while after you publish; unverified domains are checked again every few minutes, and fail 72
        hours after they were added.
      </p>
      <RecordsTable records={domain.records} />
      {manage && (
        <div class="actions page-actions">
          <form method="post" action={`${BASE}/${domain.id}/verify`}>
            <CsrfField c={c} />
            <button type="submit">Verify DNS records now</button>
          </form>
          <a href={`${BASE}/${domain.id}/delete`} role="button" class="outline danger-outline">
            Delete domain…
          </a>
        </div>
      )}
      {manage ? (
        <SenderForm c={c} domain={domain} errors={options.errors ?? {}} input={sender} />
      ) : (
        <p>
          Default sender: {current ? <code>{`${current.fromName ?? ''} <${current.fromAddress}>`}</code> : <span class="muted">none</span>}
        </p>
      )}
    </Layout>,
    options.status ?? 200,
  );
}

const routes = new Hono<DashEnv>();
routes.use('*', requireSignedIn);
routes.post('*', requireManager);

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const name = String(form.name ?? '');
  const parsed = AddEmailDomainBody.safeParse({ name });
  if (!parsed.success) return listPage(c, { errors: { name: 'Give a domain name, such as example.com.' }, name, status: 400 });
  try {
    // The dashboard acts as a live caller: the provider the configuration names (the sandbox without credentials).
    const domain = await addEmailDomain(c.var.deps, orgOf(c), 'live', parsed.data);
    setFlash(c, `${domain.name} is added. Publish its DNS records, then verify.`);
    return c.redirect(`${BASE}/${domain.id}`, 303);
  } catch (error) {
    return listPage(c, { errors: fieldErrorsOf(error, ['name']), name, status: 400 });
  }
});

routes.get('/:id', (c) => detailPage(c, c.req.param('id')));

routes.post('/:id/verify', async (c) => {
  const domain = await verifyEmailDomain(c.var.deps, orgOf(c), c.req.param('id'));
  const missing = domain.records.filter((r) => r.required && r.status !== 'verified').length;
  setFlash(
    c,
    domain.status === 'verified'
      ? `${domain.name} is verified: you can send from it.`
      : `${domain.name} is ${domain.status}: ${missing} required record${missing === 1 ? ' does' : 's do'} not match yet.`,
  );
  return c.redirect(`${BASE}/${domain.id}`, 303);
});

routes.post('/:id/default-sender', async (c) => {
  const form = await c.req.parseBody();
  const input: SenderInput = { fromName: String(form.fromName ?? ''), fromAddress: String(form.fromAddress ?? ''), replyTo: String(form.replyTo ?? '') };
  const parsed = SetDefaultSenderBody.safeParse({ ...input, replyTo: input.replyTo || undefined });
  if (!parsed.success) return detailPage(c, c.req.param('id'), { errors: zodFieldErrors(parsed.error.issues), sender: input, status: 400 });
  try {
    const domain = await setDefaultSender(c.var.deps, orgOf(c), c.req.param('id'), parsed.data);
    setFlash(c, `Messages without a from address now come from ${domain.defaultSender!.fromAddress}.`);
    return c.redirect(`${BASE}/${domain.id}`, 303);
  } catch (error) {
    return detailPage(c, c.req.param('id'), { errors: fieldErrorsOf(error, ['fromName', 'fromAddress', 'replyTo']), sender: input, status: 400 });
  }
});

routes.get('/:id/delete', async (c) => {
  const domain = await getEmailDomain(c.var.deps, orgOf(c), c.req.param('id'));
  return render(
    c,
    <ConfirmPage
      c={c}
      title={`Delete ${domain.name}`}
      subtitle={<StatusBadge status={domain.status} />}
      action={`${BASE}/${domain.id}/delete`}
      submitLabel="Delete domain"
      isDangerous
      back={{ href: `${BASE}/${domain.id}`, label: domain.name }}
    >
      <p>
        The domain is removed here and at the email provider. Messages from addresses on it are refused afterwards; adding it again means publishing new DNS
        records.
      </p>
    </ConfirmPage>,
  );
});

routes.post('/:id/delete', async (c) => {
  const domain = await getEmailDomain(c.var.deps, orgOf(c), c.req.param('id'));
  await deleteEmailDomain(c.var.deps, orgOf(c), domain.id);
  setFlash(c, `${domain.name} is deleted.`);
  return c.redirect(BASE, 303);
});

/** Email domains: list, add, DNS records to copy, verify, default sender, delete; through the core functions. */
export const emailDomainsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Domains', href: BASE, section: 'main' },
  routes,
};
