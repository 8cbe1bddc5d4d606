import { storableText, Timestamp } from './common.ts';
import { z } from './z.ts';

export const ApiKeyPermission = z.enum(['full', 'sending']).openapi({
  description:
    '`full`: every operation. `sending`: only message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource (and their Resend-compatible doors).',
});
export const ApiKeyMode = z.enum(['live', 'test']).openapi({
  description: '`live` keys send through the real providers; `test` keys only ever reach the sandbox.',
});

const apiKeyExample = {
  id: 'key_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  name: 'CI deploys',
  permission: 'sending',
  mode: 'live',
  prefix: 'sk_live_Ab3d',
  state: 'enabled',
  lastUsedAt: '2026-11-23T08:05:00.000Z',
  previousKeyExpiresAt: null,
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:00:00.000Z',
} as const;

export const ApiKey = z
  .object({
    id: z.string().openapi({ example: 'key_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    name: z.string(),
    permission: ApiKeyPermission,
    mode: ApiKeyMode,
    prefix: z.string().openapi({ description: 'The first 12 characters of the key.', example: 'sk_live_Ab3d' }),
    state: z.enum(['enabled', 'disabled']),
    lastUsedAt: Timestamp.nullable(),
    previousKeyExpiresAt: Timestamp.nullable().openapi({
      description: 'After a rotation, when the previous secret stops working; null when it already has.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('ApiKey', { example: apiKeyExample });
export type ApiKey = z.infer<typeof ApiKey>;

export const ApiKeyWithSecret = ApiKey.extend({
  key: z.string().openapi({ description: 'The full key. Shown only in this response.', example: 'sk_live_Ab3dEf...' }),
}).openapi('ApiKeyWithSecret', { example: { ...apiKeyExample, key: 'sk_live_Ab3dEfGh1jKlMn0pQrStUvWxYz012345' } });
export type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecret>;

export const CreateApiKeyBody = z
  .strictObject({
    name: storableText().trim().min(1).max(100),
    permission: ApiKeyPermission.default('full'),
    mode: ApiKeyMode.optional().openapi({
      description: "Defaults to the calling key's mode. A `test` key can only create `test` keys.",
    }),
  })
  .openapi('CreateApiKeyBody', { example: { name: 'CI deploys', permission: 'sending' } });
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const RotateApiKeyBody = z
  .strictObject({
    immediately: z.boolean().default(false).openapi({
      description: 'Stop the old secret now instead of letting it work for 24 hours.',
    }),
  })
  .openapi('RotateApiKeyBody', { example: { immediately: false } });
export type RotateApiKeyBody = z.infer<typeof RotateApiKeyBody>;
