import type { KeyObject } from 'node:crypto';
import { signResendCallback, signTelnyxCallback } from './provider-callbacks.ts';

/** Where a fake provider posts its callbacks, and what it signs them with (as the real provider's account is set up). */
export type CallbackTarget = { url: string; sign: (payload: unknown) => { body: string; headers: Record<string, string> } };

/** Resend's callbacks: Svix-signed with the endpoint's `whsec_` secret. */
export function resendCallbackTarget(url: string, secret: string): CallbackTarget {
  return { url, sign: (payload) => signResendCallback(secret, payload) };
}

/** Telnyx's callbacks: Ed25519-signed with the account's key. */
export function telnyxCallbackTarget(url: string, privateKey: KeyObject): CallbackTarget {
  return { url, sign: (payload) => signTelnyxCallback(privateKey, payload) };
}

/**
 * POSTs one signed callback and answers the HTTP status it got (a provider retries anything but 2xx).
 * @example const status = await postCallback(target, { type: 'email.opened', data: { email_id } });
 */
export async function postCallback(target: CallbackTarget | null, payload: unknown): Promise<number> {
  if (!target) throw new Error('the fake provider has no callback URL: call sendCallbacksTo(url, ...) first');
  const { body, headers } = target.sign(payload);
  const response = await fetch(target.url, { method: 'POST', body, headers });
  await response.arrayBuffer();
  return response.status;
}
