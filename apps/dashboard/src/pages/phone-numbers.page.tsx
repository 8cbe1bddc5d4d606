import { PurchasePhoneNumberBody, SearchPhoneNumbersQuery, UpdatePhoneNumberBody, type AvailablePhoneNumber, type PhoneNumber } from '@tidings/contracts';
import { getPhoneNumber, listPhoneNumbers, purchasePhoneNumber, releasePhoneNumber, searchAvailableNumbers, updatePhoneNumber } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { setFlash, takeFlash } from '../auth/cookies.ts';
import { canManage, type DashEnv } from '../env.ts';
import { requireManager, requireSignedIn } from '../middleware/require.ts';
import { ConfirmPage } from '../views/confirm-page.tsx';
import { fieldErrorsOf, FormError, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { render, Time } from '../views/render.tsx';
import type { DashboardPage } from './page.ts';

const BASE = '/phone-numbers';
const TYPES = { local: 'Local', mobile: 'Mobile', tollFree: 'Toll-free' } as const;

type Env = Context<DashEnv>;
type Search = { country: string; areaCode?: string; type?: string };

const orgOf = (c: Env) => c.var.signedIn!.membership.orgId;

function DefaultBadge({ phoneNumber }: { phoneNumber: PhoneNumber }) {
  return phoneNumber.isDefault ? <span class="badge enabled">Default</span> : null;
}

function MakeDefault({ c, phoneNumber }: { c: Env; phoneNumber: PhoneNumber }) {
  if (phoneNumber.isDefault) return null;
  return (
    <form method="post" action={`${BASE}/${phoneNumber.id}/default`} class="actions">
      <CsrfField c={c} />
      <button type="submit" class="secondary outline small">
        Make default
      </button>
    </form>
  );
}

function SearchForm({ search, errors }: { search: Search; errors: FieldErrors }) {
  return (
    <section class="card" aria-labelledby="search-title">
      <h2 id="search-title">Get a number</h2>
      <form method="get" action={`${BASE}/available`}>
        <FormError errors={errors} />
        <div class="create-row">
          <label>
            Country
            <input name="country" value={search.country} maxlength={2} size={4} required aria-invalid={errors.country ? 'true' : undefined} />
            {errors.country && <small>{errors.country}</small>}
          </label>
          <label>
            Area code
            <input name="areaCode" value={search.areaCode} placeholder="optional" maxlength={5} size={8} aria-invalid={errors.areaCode ? 'true' : undefined} />
            {errors.areaCode && <small>{errors.areaCode}</small>}
          </label>
          <label>
            Type
            <select name="type">
              {Object.entries(TYPES).map(([value, label]) => (
                <option value={value} selected={search.type === value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="secondary">
            Search numbers
          </button>
        </div>
      </form>
    </section>
  );
}

function AvailableTable({ c, numbers }: { c: Env; numbers: AvailablePhoneNumber[] }) {
  if (numbers.length === 0) return <p class="muted">No numbers match; try another area code.</p>;
  return (
    <div class="table-wrap">
      <table class="striped">
        <thead>
          <tr>
            <th>Number</th>
            <th>Where</th>
            <th>Features</th>
            <th>Monthly</th>
            <th aria-label="Actions"></th>
          </tr>
        </thead>
        <tbody>
          {numbers.map((available) => (
            <tr data-number={available.number}>
              <td class="name">{available.number}</td>
              <td>{[available.locality, available.region, available.country].filter(Boolean).join(', ')}</td>
              <td>{available.features.join(', ')}</td>
              <td>{available.monthlyCost ? `${available.monthlyCost.amount} ${available.monthlyCost.currency}` : '—'}</td>
              <td>
                <form method="post" action={BASE} class="actions">
                  <CsrfField c={c} />
                  <input type="hidden" name="number" value={available.number} />
                  <button type="submit" class="small">
                    Buy
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NumbersTable({ c, numbers }: { c: Env; numbers: PhoneNumber[] }) {
  const manage = canManage(c.var.signedIn);
  return (
    <div class="table-wrap">
      <table class="striped">
        <thead>
          <tr>
            <th>Number</th>
            <th>Name</th>
            <th>Type</th>
            <th>Provider</th>
            <th>Added</th>
            <th>Default</th>
          </tr>
        </thead>
        <tbody>
          {numbers.map((phoneNumber) => (
            <tr data-number-id={phoneNumber.id}>
              <td class="name">
                <a href={`${BASE}/${phoneNumber.id}`}>{phoneNumber.number}</a>
              </td>
              <td>{phoneNumber.friendlyName ?? <span class="muted">—</span>}</td>
              <td>
                {TYPES[phoneNumber.type]}
                {phoneNumber.country && <small class="muted"> · {phoneNumber.country}</small>}
              </td>
              <td>{phoneNumber.provider}</td>
              <td>
                <Time at={phoneNumber.createdAt} />
              </td>
              <td>{phoneNumber.isDefault ? <DefaultBadge phoneNumber={phoneNumber} /> : manage && <MakeDefault c={c} phoneNumber={phoneNumber} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; search?: Search; available?: AvailablePhoneNumber[]; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const cursor = c.req.query('cursor') || undefined;
  const page = await listPhoneNumbers(c.var.deps, membership.orgId, { limit: 50, offset: 0, cursor });
  return render(
    c,
    <Layout c={c} title="Phone numbers" flash={takeFlash(c)}>
      <hgroup class="page-title">
        <h1>Phone numbers</h1>
        <p>Numbers {membership.orgName} sends SMS from. An SMS without a from number goes out from the default one.</p>
      </hgroup>
      {canManage(c.var.signedIn) && <SearchForm search={options.search ?? { country: 'US' }} errors={options.errors ?? {}} />}
      {options.available && (
        <>
          <h2 class="section-heading">Available numbers</h2>
          <AvailableTable c={c} numbers={options.available} />
          <h2 class="section-heading">Your numbers</h2>
        </>
      )}
      {page.data.length === 0 ? (
        <article class="empty-state">
          <h3>No phone numbers yet</h3>
          <p>{canManage(c.var.signedIn) ? 'Search for one above and buy it; the first number becomes the default.' : 'An owner or operator can get one.'}</p>
        </article>
      ) : (
        <NumbersTable c={c} numbers={page.data} />
      )}
      {page.hasMore && (
        <a href={`${BASE}?cursor=${encodeURIComponent(page.nextCursor!)}`} role="button" class="secondary outline">
          Older numbers
        </a>
      )}
    </Layout>,
    options.status ?? 200,
  );
}

async function detailPage(c: Env, id: string, options: { errors?: FieldErrors; status?: 200 | 400 } = {}) {
  const phoneNumber = await getPhoneNumber(c.var.deps, orgOf(c), id);
  const errors = options.errors ?? {};
  return render(
    c,
    <Layout c={c} title={phoneNumber.number} flash={takeFlash(c)}>
      <a href={BASE} class="back">
        ← Phone numbers
      </a>
      <hgroup class="page-title">
        <h1>{phoneNumber.number}</h1>
        <p>
          <DefaultBadge phoneNumber={phoneNumber} /> {phoneNumber.friendlyName}
        </p>
      </hgroup>
      <dl class="facts card">
        <dt>Type</dt>
        <dd>{TYPES[phoneNumber.type]}</dd>
        <dt>Country</dt>
        <dd>{phoneNumber.country ?? '—'}</dd>
        <dt>Provider</dt>
        <dd>{phoneNumber.provider}</dd>
        <dt>Added</dt>
        <dd>
          <Time at={phoneNumber.createdAt} />
        </dd>
        <dt>ID</dt>
        <dd>
          <code>{phoneNumber.id}</code>
        </dd>
      </dl>
      {canManage(c.var.signedIn) && (
        <>
          <form method="post" action={`${BASE}/${phoneNumber.id}/name`} class="card">
            <CsrfField c={c} />
            <FormError errors={errors} />
            <div class="create-row">
              <label class="grow">
                Name
                <input name="friendlyName" value={phoneNumber.friendlyName ?? ''} placeholder="e.g. Support line" maxlength={100} aria-invalid={errors.friendlyName ? 'true' : undefined} />
                {errors.friendlyName && <small>{errors.friendlyName}</small>}
              </label>
              <button type="submit" class="secondary">
                Save name
              </button>
            </div>
          </form>
          <div class="actions page-actions">
            <MakeDefault c={c} phoneNumber={phoneNumber} />
            <a href={`${BASE}/${phoneNumber.id}/release`} role="button" class="outline danger-outline small">
              Release number…
            </a>
          </div>
        </>
      )}
    </Layout>,
    options.status ?? 200,
  );
}

const routes = new Hono<DashEnv>();
routes.use('*', requireSignedIn);
routes.post('*', requireManager);

routes.get('/', (c) => listPage(c));

// A search asks the provider, so only the people who may buy see it.
routes.get('/available', requireManager, async (c) => {
  const search: Search = { country: c.req.query('country') ?? 'US', areaCode: c.req.query('areaCode') || undefined, type: c.req.query('type') || undefined };
  const parsed = SearchPhoneNumbersQuery.safeParse({ ...search, limit: 10 });
  if (!parsed.success) return listPage(c, { errors: zodFieldErrors(parsed.error.issues), search, status: 400 });
  const { data } = await searchAvailableNumbers(c.var.deps, orgOf(c), 'live', parsed.data);
  return listPage(c, { search, available: data });
});

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const parsed = PurchasePhoneNumberBody.safeParse({ number: String(form.number ?? '') });
  if (!parsed.success) return listPage(c, { errors: { form: 'Pick a number from a search.' }, status: 400 });
  try {
    // As a live caller: the provider the configuration names (the sandbox without credentials).
    const bought = await purchasePhoneNumber(c.var.deps, orgOf(c), 'live', parsed.data);
    setFlash(c, `${bought.number} is yours${bought.isDefault ? ', and it is the default number' : ''}.`);
    return c.redirect(`${BASE}/${bought.id}`, 303);
  } catch (error) {
    return listPage(c, { errors: fieldErrorsOf(error, []), status: 400 });
  }
});

routes.get('/:id', (c) => detailPage(c, c.req.param('id')));

routes.post('/:id/name', async (c) => {
  const form = await c.req.parseBody();
  const name = String(form.friendlyName ?? '').trim();
  const parsed = UpdatePhoneNumberBody.safeParse({ friendlyName: name || null });
  if (!parsed.success) return detailPage(c, c.req.param('id'), { errors: { friendlyName: 'Use up to 100 characters.' }, status: 400 });
  const phoneNumber = await updatePhoneNumber(c.var.deps, orgOf(c), c.req.param('id'), parsed.data);
  setFlash(c, 'The name is saved.');
  return c.redirect(`${BASE}/${phoneNumber.id}`, 303);
});

routes.post('/:id/default', async (c) => {
  const phoneNumber = await updatePhoneNumber(c.var.deps, orgOf(c), c.req.param('id'), { isDefault: true });
  setFlash(c, `${phoneNumber.number} is the default number: SMS without a from number go out from it.`);
  return c.redirect(BASE, 303);
});

routes.get('/:id/release', async (c) => {
  const phoneNumber = await getPhoneNumber(c.var.deps, orgOf(c), c.req.param('id'));
  return render(
    c,
    <ConfirmPage
      c={c}
      title={`Release ${phoneNumber.number}`}
      subtitle={phoneNumber.friendlyName ?? undefined}
      action={`${BASE}/${phoneNumber.id}/release`}
      submitLabel="Release number"
      isDangerous
      back={{ href: `${BASE}/${phoneNumber.id}`, label: phoneNumber.number }}
    >
      <p>
        The number goes back to the provider and SMS can no longer be sent from it. You may not get it back.
        {phoneNumber.isDefault && ' It is the default number: SMS without a from number need another default.'}
      </p>
    </ConfirmPage>,
  );
});

routes.post('/:id/release', async (c) => {
  const phoneNumber = await getPhoneNumber(c.var.deps, orgOf(c), c.req.param('id'));
  await releasePhoneNumber(c.var.deps, orgOf(c), phoneNumber.id);
  setFlash(c, `${phoneNumber.number} is released.`);
  return c.redirect(BASE, 303);
});

/** Phone numbers: list, search and buy, name, default, release; through the core functions. */
export const phoneNumbersPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Phone numbers', href: BASE, section: 'main' },
  routes,
};
