import type { EmailProvider, OutgoingEmail, OutgoingSms, SmsProvider } from './provider.types.ts';

export type SandboxOutcome = 'delivered' | 'bounced' | 'failed' | 'undelivered';

/**
 * The sandbox: nothing leaves the machine. The message row already holds the full rendered content, recipients and
 * headers, and the attachment store its files (the dashboard's sandbox inbox reads them), so "sending" only reads each
 * attachment through (a `path` that cannot be fetched fails here as it would at a real provider) and hands back an id
 * derived from the message id, which makes a repeated send the same send. The outcome follows a moment later through
 * the same status path as real callbacks.
 * @example const sandbox = createSandboxProvider(); await sandbox.sendEmail(email);
 */
export function createSandboxProvider(): EmailProvider & SmsProvider & { name: 'sandbox' } {
  const accept = async (m: OutgoingEmail | OutgoingSms) => {
    // read through and dropped: the bytes are already in the store
    for (const attachment of 'attachments' in m ? (m.attachments ?? []) : []) for await (const _ of attachment.content) void _;
    return { providerMessageId: `sandbox_${m.messageId}` };
  };
  return { name: 'sandbox', dedupesRepeats: true, sendEmail: accept, sendSms: accept };
}

/**
 * What the sandbox reports for a recipient: local part `bounce` bounces, `fail` fails permanently, numbers ending
 * in `0000` are undelivered, anything else is delivered.
 * @example sandboxOutcomeFor('bounce@example.com') // 'bounced'
 */
export function sandboxOutcomeFor(to: string): SandboxOutcome {
  if (to.includes('@')) {
    const local = to.slice(0, to.lastIndexOf('@')).toLowerCase();
    if (local === 'bounce') return 'bounced';
    if (local === 'fail') return 'failed';
    return 'delivered';
  }
  return to.endsWith('0000') ? 'undelivered' : 'delivered';
}

/**
 * The engagement the sandbox reports after delivering to a recipient: local part `open` is opened, `click` is opened
 * then clicked, `complain` complains; anyone else: none.
 * @example sandboxEngagementFor('click@example.com') // ['opened', 'clicked']
 */
export function sandboxEngagementFor(to: string): ('opened' | 'clicked' | 'complained')[] {
  const local = to.includes('@') ? to.slice(0, to.lastIndexOf('@')).toLowerCase() : '';
  if (local === 'open') return ['opened'];
  if (local === 'click') return ['opened', 'clicked'];
  if (local === 'complain') return ['complained'];
  return [];
}
