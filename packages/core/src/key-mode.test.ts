import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiKeyMode, type z } from '@tidings/contracts';
import type { ApiKeyMode as StoredKeyMode } from '@tidings/db';
import { mayReachProvider, modeOfProvider, sendsToSandbox, type KeyMode } from '@tidings/providers';

// KeyMode is stated in three languages: the providers' type (the domain's), the contract's enum (the API's) and the
// schema's enum (the database's). They must be one set: the types are compared by the compiler, the schema's text here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const contractAgrees: Same<KeyMode, z.infer<typeof ApiKeyMode>> = true;
const schemaAgrees: Same<KeyMode, StoredKeyMode> = true;

describe('KeyMode', () => {
  it('is one set of modes in the providers, the contracts and the Prisma schema', () => {
    expect([contractAgrees, schemaAgrees]).toEqual([true, true]);
    const schema = readFileSync(path.resolve(__dirname, '../../../prisma/schema.prisma'), 'utf8');
    const stored = /enum ApiKeyMode \{([^}]*)\}/.exec(schema)?.[1]?.split(/\s+/).filter(Boolean);
    expect(stored).toEqual(ApiKeyMode.options);
  });

  it('sends a test key through the sandbox only, and counts only the sandbox as test traffic', () => {
    expect([sendsToSandbox('test'), sendsToSandbox('live')]).toEqual([true, false]);
    expect([modeOfProvider('sandbox'), modeOfProvider('telnyx')]).toEqual(['test', 'live']);
    expect([mayReachProvider('test', 'resend'), mayReachProvider('test', 'sandbox'), mayReachProvider('live', 'resend'), mayReachProvider(undefined, 'twilio')]).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });
});
