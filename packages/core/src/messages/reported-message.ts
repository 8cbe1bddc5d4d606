import type { Deps } from '../deps.ts';

/** The message a provider report is about: found by our id when the provider echoes it, else by the provider's id. */
export type ReportedMessageRef = { provider: string; messageId?: string; providerMessageId?: string };

/**
 * Finds the message a provider report names, only if that provider handles it (a report from one provider can never
 * touch another's message). Null when there is none.
 * @example const message = await findReportedMessage(deps, { provider: 'resend', providerMessageId: 'e1...' });
 */
export async function findReportedMessage({ db }: Pick<Deps, 'db'>, ref: ReportedMessageRef) {
  const select = { id: true, orgId: true, to: true, provider: true, channelType: true, mode: true } as const;
  const message = ref.messageId
    ? await db.message.findUnique({ where: { id: ref.messageId }, select })
    : ref.providerMessageId
      ? await db.message.findFirst({ where: { providerMessageId: ref.providerMessageId, provider: ref.provider }, select })
      : null;
  return message && message.provider === ref.provider ? message : null;
}
