import { ChannelType, MESSAGE_LIMITS } from './messages.ts';
import { z } from './z.ts';

export const SandboxInboundBody = z
  .strictObject({
    channelType: ChannelType,
    from: z.string().trim().min(1).max(MESSAGE_LIMITS.address).openapi({ description: 'The sender: an email address (email) or an E.164 number (sms).', example: '+14155550123' }),
    to: z.string().trim().min(1).max(MESSAGE_LIMITS.address).openapi({ description: 'Your number or address it was sent to.', example: '+15005550006' }),
    body: z.string().max(MESSAGE_LIMITS.smsBody).optional().openapi({ description: 'The SMS text (keywords STOP, START, HELP... act as they would).' }),
    subject: z.string().max(MESSAGE_LIMITS.subject).optional(),
    text: z.string().max(MESSAGE_LIMITS.text).optional(),
    html: z.string().max(MESSAGE_LIMITS.html).optional(),
  })
  .openapi('SandboxInboundBody', { example: { channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' } });
export type SandboxInboundBody = z.infer<typeof SandboxInboundBody>;
