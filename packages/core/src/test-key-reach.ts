import type { KeyMode } from '@tidings/providers';
import { AppError } from './errors.ts';

/**
 * An sk_test_ key never reaches a real provider: a domain or number held at one (anything but the sandbox) is out of
 * its reach for every operation that would call that provider. Throws FORBIDDEN naming the reason.
 * @example assertTestKeyMayReach('test', number.provider, 'This phone number'); // throws for 'twilio'
 */
export function assertTestKeyMayReach(mode: KeyMode, provider: string, what: string): void {
  if (mode === 'test' && provider !== 'sandbox') {
    throw new AppError('FORBIDDEN', `${what} is held at ${provider}: a test key never reaches a real provider; use a live key`);
  }
}
