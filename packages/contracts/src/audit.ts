import { ListQuery, StorableDateTime, storableText, Timestamp } from './common.ts';
import { z } from './z.ts';

/**
 * Every kind of change the audit log records, `<resource>.<what happened>`. Topic changes (`topic.*`) are listed
 * already so the topics module records them like the rest.
 */
export const AuditAction = z
  .enum([
    'apiKey.created',
    'apiKey.rotated',
    'apiKey.disabled',
    'apiKey.enabled',
    'apiKey.deleted',
    'member.roleChanged',
    'member.removed',
    'member.twoFactorReset',
    'member.twoFactorEnabled',
    'member.twoFactorDisabled',
    'member.passwordReset',
    'invitation.created',
    'invitation.revoked',
    'invitation.accepted',
    'webhook.created',
    'webhook.updated',
    'webhook.deleted',
    'webhook.secretRotated',
    'webhook.replayed',
    'webhook.eventRetried',
    'emailDomain.added',
    'emailDomain.defaultSenderSet',
    'emailDomain.updated',
    'emailDomain.deleted',
    'emailDomain.markedVerified',
    'phoneNumber.purchased',
    'phoneNumber.updated',
    'phoneNumber.released',
    'suppression.created',
    'suppression.deleted',
    'topic.created',
    'topic.updated',
    'topic.deleted',
    'broadcast.created',
    'broadcast.updated',
    'broadcast.sent',
    'broadcast.canceled',
    'broadcast.retriedFailed',
    'broadcast.deleted',
    'organization.updated',
    'sms.refused',
    'verification.canceled',
    'organization.suspended',
    'organization.unsuspended',
    'organization.liveKeysAllowed',
  ])
  .openapi({ description: 'What changed, `<resource>.<what happened>`.' });
export type AuditAction = z.infer<typeof AuditAction>;

export const AuditActorType = z.enum(['user', 'apiKey', 'cli']).openapi({
  description:
    '`apiKey`: a request with an API key (`id` is the key id); `user`: a person in the dashboard (`id` is their user id); `cli`: the `tidings` command on the server (`id` null).',
});
export type AuditActorType = z.infer<typeof AuditActorType>;

export const AuditEvent = z
  .object({
    id: z.string().openapi({ example: 'aud_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    action: AuditAction,
    actor: z.object({ type: AuditActorType, id: z.string().nullable() }),
    targetId: z.string().nullable().openapi({ description: 'The id of what changed (a key, a webhook, a user, the organization); never a secret.' }),
    ip: z.string().nullable().openapi({ description: "The client's address (behind `TRUST_PROXY`, the one the proxy saw); null for the CLI." }),
    createdAt: Timestamp,
  })
  .openapi('AuditEvent', {
    example: {
      id: 'aud_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
      action: 'apiKey.rotated',
      actor: { type: 'apiKey', id: 'key_01JD8Z5Q9X4N7W2M3K6P0R1T5A' },
      targetId: 'key_01JD8Z5Q9X4N7W2M3K6P0R1T5B',
      ip: '203.0.113.7',
      createdAt: '2026-11-23T08:00:00.000Z',
    },
  });
export type AuditEvent = z.infer<typeof AuditEvent>;

export const AuditListQuery = ListQuery.safeExtend({
  action: AuditAction.optional().openapi({ description: 'Only this kind of change.' }),
  actorId: storableText().trim().min(1).max(100).optional().openapi({ description: 'Only changes by this key id or user id.' }),
  since: StorableDateTime.optional().openapi({ description: 'Only changes at or after this time (ISO 8601).' }),
});
export type AuditListQuery = z.infer<typeof AuditListQuery>;
