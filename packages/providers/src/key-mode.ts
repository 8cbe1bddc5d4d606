/** Which kind of API key made a request: `test` keys never reach a real provider. */
export type KeyMode = 'live' | 'test';

// The rule between modes and providers, stated once: a test key's traffic goes through the sandbox only, and only
// the sandbox's traffic (sandbox.inbound, its simulated outcomes) is test traffic.

/**
 * Whether a key of `mode` sends through the sandbox rather than the configured providers.
 * @example sendsToSandbox('test') // true
 */
export function sendsToSandbox(mode: KeyMode): boolean {
  return mode === 'test';
}

/**
 * The mode of what a provider reports (an inbound message, a callback): the sandbox's is test traffic, a real one's live.
 * @example modeOfProvider('telnyx') // 'live'
 */
export function modeOfProvider(provider: string): KeyMode {
  return provider === 'sandbox' ? 'test' : 'live';
}

/**
 * Whether a key of `mode` may reach `provider` (no mode: the dashboard, acting as the organization's people, may).
 * @example mayReachProvider('test', 'resend') // false
 */
export function mayReachProvider(mode: KeyMode | undefined, provider: string): boolean {
  return mode === undefined || !sendsToSandbox(mode) || modeOfProvider(provider) === 'test';
}
