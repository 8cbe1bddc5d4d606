import { AddEmailDomainBody, SetDefaultSenderBody, type DnsRecord, type EmailDomain } from '@tidings/contracts';
import { addEmailDomain, deleteEmailDomain, getEmailDomain, listEmailDomains, organizationMode, setDefaultSender, verifyEmailDomain } from '@tidings/core';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Field, fieldErrorsOf, FormCard, FormError, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { CsrfField } from '../views/layout.tsx';
import { PagedList, Table } from '../views/list.tsx';
import { DetailPage, ForManagers, TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgContext, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/domains';

type Env = Context<DashEnv>;
type SenderInput = { fromName?: string; fromAddress?: string; replyTo?: string };

function StatusBadge({ status }: { status: EmailDomain['status'] | DnsRecord['status'] }) {
  return <span class={`badge ${status}`}>{status}</span>;
}

function AddForm({ c, errors, name }: { c: Env; errors: FieldErrors; name?: string }) {
  return (
    <FormCard c={c} id="add-domain-title" title="Add a domain" action={BASE} errors={errors}>
      <div class="create-row">
        <Field class="grow" name="name" label="Domain" errors={errors} value={name} placeholder="example.com or mail.example.com" required maxlength={253} />
        <button type="submit">Add domain</button>
      </div>
    </FormCard>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; name?: string; status?: 200 | 400 | 409 } = {}) {
  const { membership } = c.var.signedIn!;
  const page = await listEmailDomains(c.var.deps, membership.orgId, pageQuery(c));
  return render(
    c,
    <TitledPage
      c={c}
      title="Domains"
      heading="Email domains"
      intro={<>Domains {membership.orgName} sends email from. Publish the DNS records of a domain, then verify it; mail goes out only from verified domains.</>}
    >
      <ForManagers c={c} readerNote="You can see this organization's domains; owners and operators manage them.">
        <AddForm c={c} errors={options.errors ?? {}} name={options.name} />
      </ForManagers>
      <PagedList
        base={BASE}
        page={page}
        empty={{ title: 'No domains yet', hint: <p>Add the domain your mail should come from; you will get the DNS records to publish.</p> }}
        olderLabel="Older domains"
      >
        <Table headers={['Domain', 'Status', 'Default sender', 'Last checked', 'Added']}>
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
        </Table>
      </PagedList>
    </TitledPage>,
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
    <Table headers={['Purpose', 'Type', 'Name', 'Value', 'Priority', 'Status']} class="records">
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
    </Table>
  );
}

function SenderForm({ c, domain, errors, input }: { c: Env; domain: EmailDomain; errors: FieldErrors; input: SenderInput }) {
  return (
    <form method="post" action={`${BASE}/${domain.id}/default-sender`} class="card">
      <h2>Default sender</h2>
      <p class="muted">
        Used when a message to send has no <code>from</code>. The address must be on {domain.name}.
      </p>
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
    <DetailPage
      c={c}
      title={domain.name}
      back={{ href: BASE, label: 'Domains' }}
      subtitle={
        <>
          <StatusBadge status={domain.status} /> Last checked <Time at={domain.lastCheckedAt} empty="never" />
          {domain.verifiedAt && (
            <>
              {' '}
              · verified <Time at={domain.verifiedAt} />
            </>
          )}
        </>
      }
    >
      <h2 class="section-heading">DNS records</h2>
      <p class="muted">
        Publish these at your DNS host, then verify. Checking can take a while after you publish; unverified domains are checked again every few minutes, and fail 72 hours after
        they were added.
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
        <p>Default sender: {current ? <code>{`${current.fromName ?? ''} <${current.fromAddress}>`}</code> : <span class="muted">none</span>}</p>
      )}
    </DetailPage>,
    options.status ?? 200,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const name = String(form.name ?? '');
  const parsed = AddEmailDomainBody.safeParse({ name });
  if (!parsed.success) return listPage(c, { errors: { name: 'Give a domain name, such as example.com.' }, name, status: 400 });
  try {
    // As a live caller (the provider the configuration names, the sandbox without credentials), except for an
    // organization made for testing: it provisions nothing at a live provider.
    const domain = await addEmailDomain(c.var.deps, orgOf(c), await organizationMode(c.var.deps, orgOf(c)), parsed.data);
    return flashRedirect(c, `${domain.name} is added. Publish its DNS records, then verify.`, `${BASE}/${domain.id}`);
  } catch (error) {
    return listPage(c, { errors: fieldErrorsOf(error, ['name']), name, status: 400 });
  }
});

routes.get('/:id', (c) => detailPage(c, c.req.param('id')));

routes.post('/:id/verify', async (c) => {
  const domain = await verifyEmailDomain(c.var.deps, orgOf(c), c.req.param('id'));
  const missing = domain.records.filter((r) => r.required && r.status !== 'verified').length;
  return flashRedirect(
    c,
    domain.status === 'verified'
      ? `${domain.name} is verified: you can send from it.`
      : `${domain.name} is ${domain.status}: ${missing} required record${missing === 1 ? ' does' : 's do'} not match yet.`,
    `${BASE}/${domain.id}`,
    domain.status === 'verified' ? 'done' : 'warning',
  );
});

routes.post('/:id/default-sender', async (c) => {
  const form = await c.req.parseBody();
  const input: SenderInput = { fromName: String(form.fromName ?? ''), fromAddress: String(form.fromAddress ?? ''), replyTo: String(form.replyTo ?? '') };
  const parsed = SetDefaultSenderBody.safeParse({ ...input, replyTo: input.replyTo || undefined });
  if (!parsed.success) return detailPage(c, c.req.param('id'), { errors: zodFieldErrors(parsed.error.issues), sender: input, status: 400 });
  try {
    const domain = await setDefaultSender(orgContext(c), c.req.param('id'), parsed.data);
    return flashRedirect(c, `Messages without a from address now come from ${domain.defaultSender!.fromAddress}.`, `${BASE}/${domain.id}`);
  } catch (error) {
    return detailPage(c, c.req.param('id'), { errors: fieldErrorsOf(error, ['fromName', 'fromAddress', 'replyTo']), sender: input, status: 400 });
  }
});

confirmedAction(routes, 'delete', {
  load: (c) => getEmailDomain(c.var.deps, orgOf(c), c.req.param('id')!),
  ask: (domain) => ({
    title: `Delete ${domain.name}`,
    subtitle: <StatusBadge status={domain.status} />,
    submitLabel: 'Delete domain',
    isDangerous: true,
    back: { href: `${BASE}/${domain.id}`, label: domain.name },
    children: <p>The domain is removed here and at the email provider. Messages from addresses on it are refused afterwards; adding it again means publishing new DNS records.</p>,
  }),
  act: async (c, domain) => {
    await deleteEmailDomain(c.var.deps, orgOf(c), domain.id);
    return flashRedirect(c, `${domain.name} is deleted.`, BASE);
  },
});

/** Email domains: list, add, DNS records to copy, verify, default sender, delete; through the core functions. */
export const emailDomainsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Domains', href: BASE, section: 'main' },
  routes,
};
