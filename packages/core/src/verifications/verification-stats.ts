import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { countSmsRefusalsByReason } from '../sms/sms-guard.store.ts';
import { countVerificationsByChannelAndCountry } from './verification.store.ts';

/** How verifications of the last `days` went: by channel and country (sent, approved), and SMS refused by reason. */
export type VerificationStats = {
  conversion: { channelType: string; country: string | null; total: number; approved: number; rate: number }[];
  refusals: { reason: string; count: number }[];
};

/**
 * The dashboard's Verifications page: conversion by channel and country, and the fraud guard's refusals by reason.
 * @example const stats = await verificationStats(deps, orgId, 'live', 30);
 */
export async function verificationStats(deps: Pick<Deps, 'db' | 'now'>, orgId: string, mode: KeyMode, days: number): Promise<VerificationStats> {
  const since = new Date(deps.now().getTime() - days * 86_400_000);
  const [groups, refusals] = await Promise.all([countVerificationsByChannelAndCountry(deps.db, orgId, mode, since), countSmsRefusalsByReason(deps.db, orgId, mode, since)]);
  return { conversion: groups.map((g) => ({ ...g, rate: g.total === 0 ? 0 : g.approved / g.total })), refusals };
}
