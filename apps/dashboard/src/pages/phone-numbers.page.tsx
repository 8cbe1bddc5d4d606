import { PurchasePhoneNumberBody, SearchPhoneNumbersQuery, UpdatePhoneNumberBody, type AvailablePhoneNumber, type PhoneNumber } from '@tidings/contracts';
import {
  getPhoneNumber,
  keywordReplyText,
  listPhoneNumbers,
  organizationMode,
  purchasePhoneNumber,
  releasePhoneNumber,
  searchAvailableNumbers,
  updatePhoneNumber,
} from '@tidings/core';
import type { Context } from 'hono';
import { takeFlash } from '../auth/cookies.ts';
import { canManage, type DashEnv } from '../env.ts';
import { requireManager } from '../middleware/require.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Facts } from '../views/facts.tsx';
import { Field, fieldErrorsOf, FormError, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { CsrfField, Layout } from '../views/layout.tsx';
import { EmptyState, OlderLink, Table } from '../views/list.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/phone-numbers';
const TYPES = { local: 'Local', mobile: 'Mobile', tollFree: 'Toll-free' } as const;

type Env = Context<DashEnv>;
type Search = { country: string; areaCode?: string; type?: string };

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

const KEYWORDS = [
  ['stop', 'After STOP', 'The one confirmation sent after STOP; the last message the number gets until it writes START.'],
  ['start', 'After START', 'The confirmation sent when someone subscribes again.'],
  ['help', 'HELP and INFO', 'Answered whether or not the number opted out.'],
] as const;

/** The three keyword answers of a number; an empty box means the default, shown as its placeholder. */
function RepliesForm({ c, phoneNumber, errors }: { c: Env; phoneNumber: PhoneNumber; errors: FieldErrors }) {
  const { config } = c.var.deps;
  const orgName = c.var.signedIn!.membership.orgName;
  return (
    <form method="post" action={`${BASE}/${phoneNumber.id}/replies`} class="card" aria-labelledby="replies-title">
      <CsrfField c={c} />
      <h2 id="replies-title">Keyword replies</h2>
      <p class="muted">Sent from this number, once per keyword received. Leave a box empty for the default shown in it.</p>
      {KEYWORDS.map(([keyword, label, hint]) => (
        <label>
          {label}
          <textarea
            name={keyword}
            rows={2}
            maxlength={1600}
            placeholder={keywordReplyText(keyword, {}, config.smsReplies, orgName)}
            aria-invalid={errors[keyword] ? 'true' : undefined}
          >
            {phoneNumber.replies[keyword] ?? ''}
          </textarea>
          <small>{errors[keyword] ?? hint}</small>
        </label>
      ))}
      <button type="submit" class="secondary">
        Save replies
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
          <Field name="country" label="Country" errors={errors} value={search.country} maxlength={2} size={4} required />
          <Field name="areaCode" label="Area code" errors={errors} value={search.areaCode} placeholder="optional" maxlength={5} size={8} />
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
    <Table headers={['Number', 'Where', 'Features', 'Monthly']} hasActions>
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
    </Table>
  );
}

function NumbersTable({ c, numbers }: { c: Env; numbers: PhoneNumber[] }) {
  const manage = canManage(c.var.signedIn);
  return (
    <Table headers={['Number', 'Name', 'Type', 'Provider', 'Added', 'Default']}>
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
    </Table>
  );
}

async function listPage(c: Env, options: { errors?: FieldErrors; search?: Search; available?: AvailablePhoneNumber[]; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const page = await listPhoneNumbers(c.var.deps, membership.orgId, pageQuery(c));
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
        <EmptyState title="No phone numbers yet">
          <p>{canManage(c.var.signedIn) ? 'Search for one above and buy it; the first number becomes the default.' : 'An owner or operator can get one.'}</p>
        </EmptyState>
      ) : (
        <NumbersTable c={c} numbers={page.data} />
      )}
      <OlderLink base={BASE} page={page} label="Older numbers" />
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
      <Facts
        class="facts card"
        facts={[
          ['Type', TYPES[phoneNumber.type]],
          ['Country', phoneNumber.country || '—'],
          ['Provider', phoneNumber.provider],
          ['Added', <Time at={phoneNumber.createdAt} />],
          ['ID', <code>{phoneNumber.id}</code>],
        ]}
      />
      {canManage(c.var.signedIn) && (
        <>
          <form method="post" action={`${BASE}/${phoneNumber.id}/name`} class="card">
            <CsrfField c={c} />
            <FormError errors={errors} />
            <div class="create-row">
              <Field class="grow" name="friendlyName" label="Name" errors={errors} value={phoneNumber.friendlyName ?? ''} placeholder="e.g. Support line" maxlength={100} />
              <button type="submit" class="secondary">
                Save name
              </button>
            </div>
          </form>
          <RepliesForm c={c} phoneNumber={phoneNumber} errors={errors} />
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

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => listPage(c));

// A search asks the provider, so only the people who may buy see it.
routes.get('/available', requireManager, async (c) => {
  const search: Search = { country: c.req.query('country') ?? 'US', areaCode: c.req.query('areaCode') || undefined, type: c.req.query('type') || undefined };
  const parsed = SearchPhoneNumbersQuery.safeParse({ ...search, limit: 10 });
  if (!parsed.success) return listPage(c, { errors: zodFieldErrors(parsed.error.issues), search, status: 400 });
  const { data } = await searchAvailableNumbers(c.var.deps, orgOf(c), await organizationMode(c.var.deps, orgOf(c)), parsed.data);
  return listPage(c, { search, available: data });
});

routes.post('/', async (c) => {
  const form = await c.req.parseBody();
  const parsed = PurchasePhoneNumberBody.safeParse({ number: String(form.number ?? '') });
  if (!parsed.success) return listPage(c, { errors: { form: 'Pick a number from a search.' }, status: 400 });
  try {
    // As a live caller (the provider the configuration names, the sandbox without credentials), except for an
    // organization made for testing: it buys nothing at a live provider.
    const bought = await purchasePhoneNumber(c.var.deps, orgOf(c), await organizationMode(c.var.deps, orgOf(c)), parsed.data);
    return flashRedirect(c, `${bought.number} is yours${bought.isDefault ? ', and it is the default number' : ''}.`, `${BASE}/${bought.id}`);
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
  return flashRedirect(c, 'The name is saved.', `${BASE}/${phoneNumber.id}`);
});

routes.post('/:id/replies', async (c) => {
  const form = await c.req.parseBody();
  const replies = Object.fromEntries(KEYWORDS.flatMap(([keyword]) => (String(form[keyword] ?? '').trim() ? [[keyword, String(form[keyword]).trim()]] : [])));
  const parsed = UpdatePhoneNumberBody.safeParse({ replies });
  if (!parsed.success) return detailPage(c, c.req.param('id'), { errors: zodFieldErrors(parsed.error.issues.map((i) => ({ ...i, path: i.path.slice(1) }))), status: 400 });
  const phoneNumber = await updatePhoneNumber(c.var.deps, orgOf(c), c.req.param('id'), parsed.data);
  return flashRedirect(c, 'The keyword replies are saved.', `${BASE}/${phoneNumber.id}`);
});

routes.post('/:id/default', async (c) => {
  const phoneNumber = await updatePhoneNumber(c.var.deps, orgOf(c), c.req.param('id'), { isDefault: true });
  return flashRedirect(c, `${phoneNumber.number} is the default number: SMS without a from number go out from it.`, BASE);
});

confirmedAction(routes, 'release', {
  load: (c) => getPhoneNumber(c.var.deps, orgOf(c), c.req.param('id')!),
  ask: (phoneNumber) => ({
    title: `Release ${phoneNumber.number}`,
    subtitle: phoneNumber.friendlyName ?? undefined,
    submitLabel: 'Release number',
    isDangerous: true,
    back: { href: `${BASE}/${phoneNumber.id}`, label: phoneNumber.number },
    children: (
      <p>
        The number goes back to the provider and SMS can no longer be sent from it. You may not get it back.
        {phoneNumber.isDefault && ' It is the default number: SMS without a from number need another default.'}
      </p>
    ),
  }),
  act: async (c, phoneNumber) => {
    await releasePhoneNumber(c.var.deps, orgOf(c), phoneNumber.id);
    return flashRedirect(c, `${phoneNumber.number} is released.`, BASE);
  },
});

/** Phone numbers: list, search and buy, name, default, release; through the core functions. */
export const phoneNumbersPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Phone numbers', href: BASE, section: 'main' },
  routes,
};
