import type { KeyMode } from '../api-keys/key-secret.ts';

/**
 * Who is making a change, and from where: an API key (its id and mode), a person in the dashboard (their user id),
 * or the `tidings` CLI on the server. `mode` is the mode of the change: a test key's are `test`, everything else
 * `live` (people and the CLI act for the whole organization).
 */
export type AuditActor = { type: 'user' | 'apiKey' | 'cli'; id: string | null; ip: string | null; mode: KeyMode };
