import type { InstallStatus, PaceAccountStatus } from '@tidings/core';
import { json, type Command } from '../command.ts';

/** How long an app's `/readyz` may take before it counts as not answering (its own checks take up to 2 s). */
const PROBE_TIMEOUT_MS = 5000;

type AppReadiness = { app: string; url: string | null; state: 'ready' | 'not ready' | 'not answering' | 'no fixed port'; checks?: Record<string, string> };

/** Asks one app's ops port for `/readyz`: ready (200), not ready (503, with the stores it misses), or no answer. */
async function probe(app: string, host: string, port: number): Promise<AppReadiness> {
  if (port === 0) return { app, url: null, state: 'no fixed port' };
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/readyz`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await res.json().catch(() => ({}))) as { checks?: Record<string, string> };
    return { app, url, state: res.ok ? 'ready' : 'not ready', ...(body.checks ? { checks: body.checks } : {}) };
  } catch {
    return { app, url, state: 'not answering' };
  }
}

/** One paced provider account's line: `pace resend  rate 5/s, using 4.7/s, 0 deferred/s, booked 0.8 s ahead`. */
function describePace(account: PaceAccountStatus): [string, string] {
  const name = account.account === account.provider ? account.provider : `${account.provider} ${account.account}`;
  const ahead = account.bookedAheadMs > 0 ? `, booked ${(account.bookedAheadMs / 1000).toFixed(1)} s ahead` : '';
  return [`pace ${name}`, `rate ${account.ratePerSecond}/s, using ${account.usePerSecond}/s, ${account.deferralsPerSecond} deferred/s${ahead}`];
}

/** The report as aligned lines, for a person at a terminal. */
function describe(stores: InstallStatus, apps: AppReadiness[]): string {
  const rows: [string, string][] = [
    ['postgres', stores.postgres],
    ['redis', stores.redis],
    [
      'migrations',
      stores.migrations
        ? `${stores.migrations.applied} applied, ${stores.migrations.pending.length ? `pending: ${stores.migrations.pending.join(', ')} (run tidings migrate)` : 'none pending'}`
        : 'unknown (postgres does not answer)',
    ],
  ];
  if (stores.queues) {
    for (const [queue, depth] of Object.entries(stores.queues)) {
      rows.push([`queue ${queue}`, `${depth.waiting} waiting, ${depth.active} active, ${depth.delayed} delayed, ${depth.failed} failed`]);
    }
  } else rows.push(['queues', 'unknown (redis does not answer)']);
  rows.push(['email providers', stores.providers.email.join(', ')], ['sms providers', stores.providers.sms.join(', ')]);
  if (stores.pace) rows.push(...stores.pace.map(describePace));
  else rows.push(['pace', 'unknown (redis does not answer)']);
  for (const app of apps) {
    const missing = app.checks ? Object.entries(app.checks).filter(([, state]) => state !== 'ok') : [];
    const detail = missing.length ? ` (${missing.map(([name, state]) => `${name} ${state}`).join(', ')})` : '';
    rows.push([app.app, `${app.state}${detail}${app.url ? ` at ${app.url}` : ''}`]);
  }
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n');
}

export const status: Command = {
  name: 'status',
  summary:
    'Reports whether Postgres and Redis answer, which migrations are applied or pending, the jobs in each queue, the providers configured, each paced provider account’s rate, use and deferrals (and each SMS number sent through lately), and each app’s readiness from its ops port (API_METRICS_PORT, DASHBOARD_METRICS_PORT, SEND_WORKER_METRICS_PORT, WEBHOOK_WORKER_METRICS_PORT, SMTP_METRICS_PORT). Exits 1 when anything is not as it should be.',
  options: {
    host: { type: 'string', description: 'where the apps’ ops ports are reached (default 127.0.0.1)' },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const { config } = ctx;
    const [stores, ...apps] = await Promise.all([
      core.installStatus(deps),
      probe('api', host, config.apiMetricsPort),
      probe('dashboard', host, config.dashboardMetricsPort),
      probe('send-worker', host, config.sendWorker.metricsPort),
      probe('webhook-worker', host, config.webhooks.workerMetricsPort),
      probe('smtp', host, config.smtpSubmission.metricsPort),
    ]);
    ctx.out(values.json ? json({ ...stores, apps }) : describe(stores, apps));
    const healthy = stores.postgres === 'ok' && stores.redis === 'ok' && stores.migrations?.pending.length === 0 && apps.every((app) => app.state === 'ready');
    return healthy ? 0 : 1;
  },
};
