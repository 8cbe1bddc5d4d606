import { PurchasePhoneNumberBody, SearchPhoneNumbersQuery, UpdatePhoneNumberBody, type AvailablePhoneNumber } from '@tidings/contracts';
import { getPhoneNumber, listPhoneNumbers, organizationMode, purchasePhoneNumber, releasePhoneNumber, searchAvailableNumbers, updatePhoneNumber } from '@tidings/core';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { requireManager } from '../middleware/require.ts';
import { confirmedAction } from '../views/confirm-page.tsx';
import { Facts } from '../views/facts.tsx';
import { Field, fieldErrorsOf, FormError, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { CsrfField } from '../views/layout.tsx';
import { PagedList } from '../views/list.tsx';
import { DetailPage, TitledPage } from '../views/page-shell.tsx';
import { AvailableTable, DefaultBadge, KEYWORDS, MakeDefault, NumbersTable, RateForm, RepliesForm, SearchForm, TYPES, type Search } from '../views/phone-number-views.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgContext, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/phone-numbers';

type Env = Context<DashEnv>;

async function listPage(c: Env, options: { errors?: FieldErrors; search?: Search; available?: AvailablePhoneNumber[]; status?: 200 | 400 } = {}) {
  const { membership } = c.var.signedIn!;
  const page = await listPhoneNumbers(c.var.deps, membership.orgId, pageQuery(c));
  return render(
    c,
    <TitledPage c={c} title="Phone numbers" intro={`Numbers ${membership.orgName} sends SMS from. An SMS without a from number goes out from the default one.`}>
      {canManage(c.var.signedIn) && <SearchForm search={options.search ?? { country: 'US' }} errors={options.errors ?? {}} />}
      {options.available && (
        <>
          <h2 class="section-heading">Available numbers</h2>
          <AvailableTable c={c} numbers={options.available} />
          <h2 class="section-heading">Your numbers</h2>
        </>
      )}
      <PagedList
        base={BASE}
        page={page}
        empty={{
          title: 'No phone numbers yet',
          hint: <p>{canManage(c.var.signedIn) ? 'Search for one above and buy it; the first number becomes the default.' : 'An owner or operator can get one.'}</p>,
        }}
        olderLabel="Older numbers"
      >
        <NumbersTable c={c} numbers={page.data} />
      </PagedList>
    </TitledPage>,
    options.status ?? 200,
  );
}

async function detailPage(c: Env, id: string, options: { errors?: FieldErrors; status?: 200 | 400 } = {}) {
  const phoneNumber = await getPhoneNumber(c.var.deps, orgOf(c), id);
  const errors = options.errors ?? {};
  return render(
    c,
    <DetailPage
      c={c}
      title={phoneNumber.number}
      back={{ href: BASE, label: 'Phone numbers' }}
      subtitle={
        <>
          <DefaultBadge phoneNumber={phoneNumber} /> {phoneNumber.friendlyName}
        </>
      }
    >
      <Facts
        class="facts card"
        facts={[
          ['Type', TYPES[phoneNumber.type]],
          ['Country', phoneNumber.country || '—'],
          ['Provider', phoneNumber.provider],
          ['Sending rate', `${phoneNumber.messagesPerSecond} ${phoneNumber.messagesPerSecond === 1 ? 'message' : 'messages'} a second`],
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
          <RateForm c={c} phoneNumber={phoneNumber} errors={errors} />
          <RepliesForm c={c} phoneNumber={phoneNumber} errors={errors} />
          <div class="actions page-actions">
            <MakeDefault c={c} phoneNumber={phoneNumber} />
            <a href={`${BASE}/${phoneNumber.id}/release`} role="button" class="outline danger-outline small">
              Release number…
            </a>
          </div>
        </>
      )}
    </DetailPage>,
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
  const phoneNumber = await updatePhoneNumber(orgContext(c), c.req.param('id'), parsed.data);
  return flashRedirect(c, 'The name is saved.', `${BASE}/${phoneNumber.id}`);
});

// every send-worker keeps to it (the number's limiter); an empty box goes back to the type's default
routes.post('/:id/rate', async (c) => {
  const form = await c.req.parseBody();
  const text = String(form.messagesPerSecond ?? '').trim();
  const parsed = UpdatePhoneNumberBody.safeParse({ messagesPerSecond: text === '' ? null : Number(text) });
  if (!parsed.success) return detailPage(c, c.req.param('id'), { errors: { messagesPerSecond: 'Use a number from 0.01 to 1000.' }, status: 400 });
  const phoneNumber = await updatePhoneNumber(orgContext(c), c.req.param('id'), parsed.data);
  return flashRedirect(c, `${phoneNumber.number} sends ${phoneNumber.messagesPerSecond} a second.`, `${BASE}/${phoneNumber.id}`);
});

routes.post('/:id/replies', async (c) => {
  const form = await c.req.parseBody();
  const replies = Object.fromEntries(KEYWORDS.flatMap(([keyword]) => (String(form[keyword] ?? '').trim() ? [[keyword, String(form[keyword]).trim()]] : [])));
  const parsed = UpdatePhoneNumberBody.safeParse({ replies });
  if (!parsed.success) return detailPage(c, c.req.param('id'), { errors: zodFieldErrors(parsed.error.issues.map((i) => ({ ...i, path: i.path.slice(1) }))), status: 400 });
  const phoneNumber = await updatePhoneNumber(orgContext(c), c.req.param('id'), parsed.data);
  return flashRedirect(c, 'The keyword replies are saved.', `${BASE}/${phoneNumber.id}`);
});

routes.post('/:id/default', async (c) => {
  const phoneNumber = await updatePhoneNumber(orgContext(c), c.req.param('id'), { isDefault: true });
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
