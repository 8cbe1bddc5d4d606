import { mayReachProvider, type KeyMode } from '@tidings/providers';
import { AppError } from './errors.ts';

/**
 * A test key never reaches a real provider: it may not change a domain or number provisioned at one (anything but
 * the sandbox), so 403 naming why. Without a mode (the dashboard, acting as the organization's people) it may.
 * @example refuseTestKeyOnProviderBacked('test', number.provider, `Phone number ${number.number}`);
 */
export function refuseTestKeyOnProviderBacked(mode: KeyMode | undefined, provider: string, what: string): void {
  if (!mayReachProvider(mode, provider)) {
    throw new AppError('FORBIDDEN', `${what} is provisioned at ${provider}: an sk_test_ key cannot change it (test keys never reach a real provider); use an sk_live_ key`);
  }
}
