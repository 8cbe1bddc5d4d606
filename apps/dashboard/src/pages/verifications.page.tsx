import { UpdateOrganizationBody } from '@tidings/contracts';
import { getOrganizationSettings, listVerifications, organizationMode, updateOrganizationSettings, verificationStats } from '@tidings/core';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { Field, FormCard, zodFieldErrors, type FieldErrors } from '../views/form.tsx';
import { PagedList, Table } from '../views/list.tsx';
import { TitledPage } from '../views/page-shell.tsx';
import { render, Time } from '../views/render.tsx';
import { flashRedirect, orgOf, pageQuery, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/verifications';
const STATS_DAYS = 30;
const REASONS: Record<string, string> = {
  country: 'Country not enabled',
  number_type: 'Premium-rate, shared-cost or unknown number',
  prefix_velocity: 'Too many to one prefix',
};

type Env = Context<DashEnv>;

const percent = (rate: number) => `${Math.round(rate * 100)} %`;

async function verificationsPage(c: Env, options: { errors?: FieldErrors; countries?: string; status?: 200 | 400 } = {}) {
  const orgId = orgOf(c);
  const mode = await organizationMode(c.var.deps, orgId);
  const [page, stats, org] = await Promise.all([
    listVerifications(c.var.deps, orgId, mode, pageQuery(c)),
    verificationStats(c.var.deps, orgId, mode, STATS_DAYS),
    getOrganizationSettings(c.var.deps, orgId),
  ]);
  const errors = options.errors ?? {};
  return render(
    c,
    <TitledPage c={c} title="Verifications" intro={<>One-time codes sent by SMS and email ({mode} mode), how many were approved, and the SMS the fraud guard refused.</>}>
      <section class="card" aria-labelledby="conversion-title">
        <h2 id="conversion-title">Conversion, last {STATS_DAYS} days</h2>
        {stats.conversion.length === 0 ? (
          <p>No codes sent yet.</p>
        ) : (
          <Table headers={['Channel', 'Country', 'Sent', 'Approved', 'Rate']}>
            {stats.conversion.map((row) => (
              <tr data-conversion={`${row.channelType}:${row.country ?? ''}`}>
                <td>{row.channelType === 'sms' ? 'SMS' : 'Email'}</td>
                <td>{row.country ?? '—'}</td>
                <td>{row.total}</td>
                <td>{row.approved}</td>
                <td>{percent(row.rate)}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <section class="card" aria-labelledby="blocked-title">
        <h2 id="blocked-title">Blocked SMS, last {STATS_DAYS} days</h2>
        {stats.refusals.length === 0 ? (
          <p>The fraud guard refused nothing.</p>
        ) : (
          <Table headers={['Reason', 'Attempts']}>
            {stats.refusals.map((row) => (
              <tr data-refusal={row.reason}>
                <td>{REASONS[row.reason] ?? row.reason}</td>
                <td>{row.count}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      {canManage(c.var.signedIn) ? (
        <FormCard c={c} id="sms-countries-title" title="SMS countries" action={`${BASE}/sms-countries`} errors={errors}>
          <Field
            name="smsCountries"
            label="Countries an SMS may go to (ISO codes, comma separated)"
            errors={errors}
            value={options.countries ?? org.smsCountries.join(', ')}
            placeholder="US, CA, GB"
          />
          <button type="submit">Save countries</button>
        </FormCard>
      ) : (
        <section class="card">
          <p>SMS may go to: {org.smsCountries.join(', ') || 'no country yet'}.</p>
        </section>
      )}
      <h2>Recent</h2>
      <PagedList
        base={BASE}
        page={page}
        empty={{ title: 'No verifications yet', hint: <p>POST /v1/verifications sends a code; this page shows each one and what came of it.</p> }}
        olderLabel="Older verifications"
      >
        <Table headers={['To', 'Channel', 'Status', 'Sends', 'Checks', 'Created']}>
          {page.data.map((v) => (
            <tr data-verification-id={v.id}>
              <td class="name">{v.to}</td>
              <td>{v.channelType === 'sms' ? 'SMS' : 'Email'}</td>
              <td>{v.status.replaceAll('_', ' ')}</td>
              <td>{v.sendAttempts}</td>
              <td>{v.checkAttempts}</td>
              <td>
                <Time at={v.createdAt} />
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
    </TitledPage>,
    options.status ?? 200,
  );
}

const routes = pageRoutes({ managersPost: true });

routes.get('/', (c) => verificationsPage(c));

routes.post('/sms-countries', async (c) => {
  const form = await c.req.parseBody();
  const countries = typeof form.smsCountries === 'string' ? form.smsCountries : '';
  const codes = countries
    .split(/[\s,]+/)
    .map((code) => code.trim().toUpperCase())
    .filter(Boolean);
  const parsed = UpdateOrganizationBody.safeParse({ smsCountries: codes });
  if (!parsed.success) {
    const errors = zodFieldErrors(parsed.error.issues.map((issue) => ({ ...issue, path: ['smsCountries'] })));
    return verificationsPage(c, { errors, countries, status: 400 });
  }
  await updateOrganizationSettings(c.var.deps, orgOf(c), parsed.data);
  return flashRedirect(c, 'The SMS countries are saved.', BASE);
});

/** Verifications: recent codes, conversion by channel and country, blocked SMS by reason, and the SMS countries. */
export const verificationsDashboardPage: DashboardPage = {
  path: BASE,
  nav: { label: 'Verifications', href: BASE, section: 'main' },
  routes,
};
