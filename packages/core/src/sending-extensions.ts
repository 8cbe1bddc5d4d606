import { listUnsubscribeTransform } from './broadcasts/unsubscribe-token.ts';
import type { SendingExtensions } from './messages/send-attempt.ts';
import { passwordResetLinkTransform } from './people/password-reset.service.ts';
import { failAsRecipientStopped } from './suppressions/recipient-stopped.ts';
import { trackingTransform } from './tracking/tracked-html.ts';
import { failVerificationOfMessage } from './verifications/verification-failure.ts';
import { handOffCodeTransform } from './verifications/verification-message.ts';

/**
 * What a send does beyond the message itself, each written by the module it belongs to, put together here so that
 * the send attempt imports none of them (the bootstrap gives this to the dependencies). The order of the transforms
 * is the order they apply: headers and tracking on the email as stored, then what only a provider is given (a
 * reset email is replaced whole, so it comes after tracking; a code fills the mask of whatever came before).
 * @example const deps = { ...base, sending: sendingExtensions() };
 */
export function sendingExtensions(): SendingExtensions {
  return {
    transforms: [listUnsubscribeTransform, trackingTransform, passwordResetLinkTransform, handOffCodeTransform],
    failAsRecipientStopped,
    afterFailed: [failVerificationOfMessage],
  };
}
