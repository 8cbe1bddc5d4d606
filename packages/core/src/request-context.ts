import type { KeyMode } from '@tidings/providers';
import type { RequestTrace } from '@tidings/telemetry';
import type { Deps } from './deps.ts';

/**
 * Who a request acts for, passed as one value rather than a row of positional parameters: the dependencies, the
 * organization, the key's mode, and the request's trace (continued by the jobs its changes add). Who makes the
 * change for the audit log stays `deps.actor`, set per request with the dependencies.
 * @example await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550123', body: 'hi' });
 */
export type RequestContext = { deps: Deps; orgId: string; mode: KeyMode; trace?: RequestTrace };

/**
 * A request's context whose mode may be absent: then it sees both modes (the dashboard's, the operator's); with a mode
 * (an API key's), another mode's resource is NOT_FOUND. A RequestContext is one. `D`: the dependencies it needs.
 * @example await updateWebhook({ deps, orgId }, 'whk_...', { enabled: true });
 */
export type OrgContext<D = Deps> = { deps: D; orgId: string; mode?: KeyMode; trace?: RequestTrace };
