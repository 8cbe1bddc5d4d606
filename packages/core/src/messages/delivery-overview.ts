import type { Deps } from '../deps.ts';
import { countMessagesByDay, findMessageDayCounts, insertMessageDayCounts } from './message-read.store.ts';

type Channel = 'email' | 'sms';
type Counts = { sent: number; delivered: number; bounced: number; failed: number };
/** Outcomes of the outbound messages of one channel created on one UTC day. */
export type DailyDeliveryCounts = Counts & { day: string; channelType: Channel };
export type DeliveryTotals = Counts & { deliveryRate: number | null; bounceRate: number | null };
export type DeliveryOverview = { days: string[]; counts: DailyDeliveryCounts[]; totals: Record<'all' | Channel, DeliveryTotals> };

const DAY_MS = 86_400_000;
/**
 * Days this old are counted once and kept (MessageDayCount): by then nearly every message has its outcome. The
 * rest is counted live on each view. The price: a status that changes later (a very late bounce, a message
 * scheduled days ahead) is not reflected in a day already kept.
 */
export const SETTLED_AFTER_DAYS = 3;

const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The settled days of the range, from MessageDayCount; those not kept yet are counted in one scan and kept. */
async function settledCounts(deps: Pick<Deps, 'db' | 'reads'>, orgId: string, days: string[]): Promise<DailyDeliveryCounts[]> {
  if (days.length === 0) return [];
  const kept = await findMessageDayCounts(
    deps.reads,
    orgId,
    days.map((day) => new Date(`${day}T00:00:00Z`)),
  );
  const keptDays = new Set(kept.map((row) => dayOf(row.day.getTime())));
  const rows = kept.flatMap((row) => (row.counts as (Counts & { channelType: Channel })[]).map((c) => ({ ...c, day: dayOf(row.day.getTime()) })));
  const missing = days.filter((day) => !keptDays.has(day));
  if (missing.length > 0) {
    const from = new Date(`${missing[0]}T00:00:00Z`);
    const to = new Date(Date.parse(`${missing.at(-1)}T00:00:00Z`) + DAY_MS);
    const counted = (await countMessagesByDay(deps.reads, orgId, from, to)).filter((row) => missing.includes(row.day));
    const data = missing.map((day) => ({
      orgId,
      day: new Date(`${day}T00:00:00Z`),
      counts: counted.filter((row) => row.day === day).map(({ day: _day, ...counts }) => counts),
    }));
    await insertMessageDayCounts(deps.db, data);
    rows.push(...counted);
  }
  return rows;
}

function totalsOf(rows: DailyDeliveryCounts[]): DeliveryTotals {
  const sum = (key: keyof Counts) => rows.reduce((total, row) => total + row[key], 0);
  const [sent, delivered, bounced, failed] = [sum('sent'), sum('delivered'), sum('bounced'), sum('failed')];
  const finished = delivered + bounced + failed;
  return { sent, delivered, bounced, failed, deliveryRate: finished ? delivered / finished : null, bounceRate: sent ? bounced / sent : null };
}

/**
 * Outbound messages per UTC day and channel over the last `days` days (today included), by where they ended:
 * `sent` reached a provider (sent, delivered, bounced or undelivered), `delivered`, `bounced`, and `failed` (failed
 * or undelivered; not a send refused to a suppressed recipient, which is no failure of delivery). The delivery rate is delivered over those with an outcome, the bounce rate bounced over sent.
 * Days older than {@link SETTLED_AFTER_DAYS} come from MessageDayCount (counted the first time they are needed), so
 * a view scans only the last few days' messages, however many the 30 days hold (`npm run bench:overview`).
 * @example const overview = await getDeliveryOverview(deps, orgId); overview.totals.all.deliveryRate // 0.97
 */
export async function getDeliveryOverview(deps: Pick<Deps, 'db' | 'reads' | 'now'>, orgId: string, days = 30): Promise<DeliveryOverview> {
  const now = deps.now();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const dayList = Array.from({ length: days }, (_, i) => dayOf(today - (days - 1 - i) * DAY_MS));
  const liveFrom = today - (SETTLED_AFTER_DAYS - 1) * DAY_MS;
  const [settled, live] = await Promise.all([
    settledCounts(
      deps,
      orgId,
      dayList.filter((day) => Date.parse(`${day}T00:00:00Z`) < liveFrom),
    ),
    countMessagesByDay(deps.reads, orgId, new Date(Math.max(liveFrom, today - (days - 1) * DAY_MS)), new Date(today + DAY_MS)),
  ]);
  const counts = [...settled, ...live].sort((a, b) => a.day.localeCompare(b.day) || a.channelType.localeCompare(b.channelType));
  const byChannel = (channel: Channel) => counts.filter((row) => row.channelType === channel);
  return { days: dayList, counts, totals: { all: totalsOf(counts), email: totalsOf(byChannel('email')), sms: totalsOf(byChannel('sms')) } };
}
