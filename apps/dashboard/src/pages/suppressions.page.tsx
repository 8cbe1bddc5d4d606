import { CreateSuppressionBody, SuppressionListQuery, SuppressionReason, type Suppression } from '@tidings/contracts';
import { createSuppression, deleteSuppression, getSuppression, listSuppressions } from '@tidings/core';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { PageLinks } from '../views/filtered-list.tsx';
import { Field, fieldErrorsOf, FormCard, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { EmptyState, Table } from '../views/list.tsx';
import { TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgOf, PAGE_SIZE, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/suppressions';
const REASONS: Record<SuppressionReason, string> = {
  bounced: 'Bounced',
  complained: 'Complained',
  unsubscribed: 'Unsubscribed',
  stopped: 'Texted STOP',
  manual: 'Added by hand',
};

type Env = Context<DashEnv>;
type Filters = { reason: string; channelType: string; address: string };
type AddInput = { channelType?: string; address?: string };

function readFilters(c: Env): Filters {
  const q = (name: string) => (c.req.query(name) ?? '').trim();
  return { reason: q('reason'), channelType: q('channelType'), address: q('address') };
}

/** The channel picker of a form, labelled; `anyLabel` adds an option for either channel (filters). */
function ChannelSelect({ name, value, anyLabel }: { name: string; value?: string; anyLabel?: string }) {
  return (
    <label>
      Channel
      <select name={name}>
        {anyLabel && <option value="">{anyLabel}</option>}
        <option value="email" selected={value === 'email'}>
          Email
        </option>
        <option value="sms" selected={value === 'sms'}>
          SMS
        </option>
      </select>
    </label>
  );
}

function FilterForm({ filters }: { filters: Filters }) {
  return (
    <form method="get" action={BASE} class="card create-row" role="search" aria-label="Filter suppressions">
      <label>
        Reason
        <select name="reason">
          <option value="">Any reason</option>
          {SuppressionReason.options.map((reason) => (
            <option value={reason} selected={filters.reason === reason}>
              {REASONS[reason]}
            </option>
          ))}
        </select>
      </label>
      <ChannelSelect name="channelType" value={filters.channelType} anyLabel="Any channel" />
      <label class="grow">
        Address
        <input name="address" value={filters.address} placeholder="exact email or +E.164 number" maxlength={320} />
      </label>
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

function AddForm({ c, errors, input }: { c: Env; errors: FieldErrors; input: AddInput }) {
  return (
    <FormCard c={c} id="add-suppression-title" title="Suppress an address" action={BASE} errors={errors}>
      <div class="create-row">
        <ChannelSelect name="channelType" value={input.channelType} />
        <Field class="grow" name="address" label="Address" errors={errors} value={input.address} placeholder="ada@example.com or +14155550123" maxlength={320} required />
        <button type="submit">Suppress</button>
      </div>
    </FormCard>
  );
}

function SuppressionsTable({ suppressions, manage }: { suppressions: Suppression[]; manage: boolean }) {
  return (
    <Table headers={['Address', 'Channel', 'Reason', 'Mode', 'Since']} hasActions={manage}>
      {suppressions.map((suppression) => (
        <tr data-suppression-id={suppression.id}>
          <td class="name">{suppression.address}</td>
          <td>{suppression.channelType === 'email' ? 'Email' : 'SMS'}</td>
          <td>
            <span class="badge">{REASONS[suppression.reason]}</span>
          </td>
          <td>{suppression.mode === 'test' ? 'Test (stops test sends only)' : 'Live'}</td>
          <td>
            <Time at={suppression.createdAt} />
          </td>
          {manage && (
            <td>
              <a href={`${BASE}/${suppression.id}/lift`} role="button" class="secondary outline small">
                Lift…
              </a>
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; input?: AddInput; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const filters = readFilters(c);
  const cursor = c.req.query('cursor') || undefined;
  const query = SuppressionListQuery.safeParse({
    limit: PAGE_SIZE,
    cursor,
    reason: filters.reason || undefined,
    channelType: filters.channelType || undefined,
    address: filters.address || undefined,
  });
  const page = query.success ? await listSuppressions(c.var.deps, membership.orgId, query.data) : null;
  const isFiltered = Object.values(filters).some(Boolean);
  return render(
    c,
    <TitledPage
      c={c}
      title="Suppressions"
      intro={
        <>Addresses {membership.orgName} never sends to: bounces, complaints, unsubscribes and STOP replies are added as they happen. Lifting one lets the next send go out.</>
      }
    >
      {canManage(c.var.signedIn) && <AddForm c={c} errors={options.errors ?? {}} input={options.input ?? {}} />}
      <FilterForm filters={filters} />
      {!page ? (
        <p class="form-error" role="alert">
          {Object.values(zodFieldErrors(query.error!.issues)).join(' ')}
        </p>
      ) : page.data.length === 0 ? (
        <EmptyState title={isFiltered ? 'No suppressions match these filters' : 'No suppressions'}>
          <p>{isFiltered ? 'Try other filters.' : 'Every address can be sent to.'}</p>
        </EmptyState>
      ) : (
        <>
          <SuppressionsTable suppressions={page.data} manage={canManage(c.var.signedIn)} />
          <PageLinks base={BASE} filters={filters} page={page} cursor={cursor} label="Older suppressions" />
        </>
      )}
    </TitledPage>,
    options.status ?? (page ? 200 : 400),
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const input: AddInput = { channelType: String(form.channelType ?? ''), address: String(form.address ?? '') };
  const parsed = CreateSuppressionBody.safeParse(input);
  if (!parsed.success) return listPage(c, { errors: zodFieldErrors(parsed.error.issues), input, status: 400 });
  try {
    const suppression = await createSuppression(c.var.deps, orgOf(c), parsed.data);
    return flashRedirect(c, `${suppression.address} is suppressed: nothing is sent to it until it is lifted.`, BASE);
  } catch (error) {
    return listPage(c, { errors: fieldErrorsOf(error, ['address']), input, status: 400 });
  }
});

confirmedAction(routes, 'lift', {
  load: (c) => getSuppression(c.var.deps, orgOf(c), c.req.param('id')!),
  ask: (suppression) => ({
    title: `Lift the suppression of ${suppression.address}`,
    subtitle: `${REASONS[suppression.reason]} · ${suppression.channelType === 'email' ? 'Email' : 'SMS'}`,
    submitLabel: 'Lift suppression',
    isDangerous: suppression.reason === 'complained' || suppression.reason === 'stopped',
    back: { href: BASE, label: 'Suppressions' },
    children: (
      <p>
        The next message to this address is sent.
        {suppression.reason === 'complained' && ' This person marked a message as spam: sending again can hurt your sender reputation.'}
        {suppression.reason === 'stopped' && ' This person texted STOP: carriers expect them to text START before you send again.'} The contact’s subscription settings stay as they
        are.
      </p>
    ),
  }),
  act: async (c, suppression) => {
    await deleteSuppression(c.var.deps, orgOf(c), suppression.id);
    return flashRedirect(c, `${suppression.address} is no longer suppressed.`, BASE);
  },
});

/** Suppressions: list with filters, add by hand, lift after asking; through the core functions. */
export const suppressionsPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Suppressions', href: BASE, section: 'main' },
  routes,
};
