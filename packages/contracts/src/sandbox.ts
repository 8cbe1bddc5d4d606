import { storableText } from './common.ts';
import { ChannelType, MESSAGE_LIMITS } from './messages.ts';
import { z } from './z.ts';

export const SandboxInboundBody = z
  .strictObject({
    channelType: ChannelType,
    from: storableText()
      .trim()
      .min(1)
      .max(MESSAGE_LIMITS.address)
      .openapi({ description: 'The sender: an email address (email) or an E.164 number (sms).', example: '+14155550123' }),
    to: storableText().trim().min(1).max(MESSAGE_LIMITS.address).openapi({ description: 'Your number or address it was sent to.', example: '+15005550006' }),
    body: storableText().max(MESSAGE_LIMITS.smsBody).optional().openapi({ description: 'The SMS text (keywords STOP, START, HELP... act as they would).' }),
    subject: storableText().max(MESSAGE_LIMITS.subject).optional(),
    text: storableText().max(MESSAGE_LIMITS.text).optional(),
    html: storableText().max(MESSAGE_LIMITS.html).optional(),
  })
  .openapi('SandboxInboundBody', { example: { channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' } });
export type SandboxInboundBody = z.infer<typeof SandboxInboundBody>;
