import { getDeliveryOverview, type DeliveryOverview, type DeliveryTotals } from '@tidings/core';
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { DashEnv } from '../env.ts';
import { EmptyState, Table } from '../views/list.tsx';
import { TitledPage } from '../views/page-shell.tsx';
import { render } from '../views/render.tsx';
import { orgOf, pageRoutes, type DashboardPage } from './page.ts';

const BASE = '/overview';
const CHANNELS = [
  ['email', 'Email'],
  ['sms', 'SMS'],
] as const;
const SERIES = ['sent', 'delivered', 'bounced', 'failed'] as const;

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)}%`);

/** The chart's data: per channel, one list of counts per series, a number for each day (0 for a day without messages). */
function chartData(overview: DeliveryOverview) {
  const channels = Object.fromEntries(
    CHANNELS.map(([channel]) => {
      const byDay = new Map(overview.counts.filter((row) => row.channelType === channel).map((row) => [row.day, row]));
      return [channel, Object.fromEntries(SERIES.map((series) => [series, overview.days.map((day) => byDay.get(day)?.[series] ?? 0)]))];
    }),
  );
  return { days: overview.days, channels };
}

function TotalsTable({ totals }: { totals: DeliveryOverview['totals'] }) {
  const rows: [string, DeliveryTotals][] = [['All', totals.all], ...CHANNELS.map(([channel, label]) => [label, totals[channel]] as [string, DeliveryTotals])];
  return (
    <Table headers={['Channel', 'Sent', 'Delivered', 'Bounced', 'Failed', 'Delivery rate', 'Bounce rate']} class="striped totals">
      {rows.map(([label, t]) => (
        <tr data-channel={label}>
          <td class="name">{label}</td>
          <td>{t.sent.toLocaleString('en-US')}</td>
          <td>{t.delivered.toLocaleString('en-US')}</td>
          <td>{t.bounced.toLocaleString('en-US')}</td>
          <td>{t.failed.toLocaleString('en-US')}</td>
          <td class="rate">{percent(t.deliveryRate)}</td>
          <td class="rate">{percent(t.bounceRate)}</td>
        </tr>
      ))}
    </Table>
  );
}

async function showOverview(c: Context<DashEnv>) {
  const overview = await getDeliveryOverview(c.var.deps, orgOf(c));
  // JSON for overview.js, in a script element that does not run; `<` escaped so no text can close the element
  const data = JSON.stringify(chartData(overview)).replace(/</g, '\\u003c');
  const isEmpty = overview.totals.all.sent + overview.totals.all.failed === 0;
  return render(
    c,
    <TitledPage
      c={c}
      title="Overview"
      intro={<>Messages of {c.var.signedIn!.membership.orgName} over the last 30 days (UTC), by the day they were created and where they ended.</>}
    >
      {isEmpty ? (
        <EmptyState title="Nothing sent in the last 30 days">
          <p>Delivery and bounce rates show here once messages go out.</p>
        </EmptyState>
      ) : (
        <>
          <TotalsTable totals={overview.totals} />
          <p class="muted small-print">Delivery rate: delivered of those with an outcome. Bounce rate: bounced of those that reached a provider.</p>
          <link rel="stylesheet" href="/assets/uplot.min.css" />
          <script type="application/json" id="overview-data">
            {raw(data)}
          </script>
          <div class="charts">
            {CHANNELS.map(([channel, label]) => (
              <section class="card chart-card">
                <h2 class="section-heading">{label} per day</h2>
                <div class="chart" data-channel={channel} role="img" aria-label={`${label}: sent, delivered, bounced and failed per day`}></div>
              </section>
            ))}
          </div>
          <script src="/assets/uplot.min.js" defer></script>
          <script src="/assets/overview.js" defer></script>
        </>
      )}
    </TitledPage>,
  );
}

const routes = pageRoutes();
routes.get('/', showOverview);

/** Overview: 30 days of sent, delivered, bounced and failed messages per day and channel, with the rates. */
export const overviewDashboardPage: DashboardPage = { path: BASE, nav: { label: 'Overview', href: BASE, section: 'main' }, routes };
