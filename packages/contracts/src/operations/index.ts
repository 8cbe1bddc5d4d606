import { apiKeyOperations } from './api-keys.operations.ts';
import { auditOperations } from './audit.operations.ts';
import { broadcastOperations } from './broadcasts.operations.ts';
import { contactOperations } from './contacts.operations.ts';
import { emailDomainOperations } from './email-domains.operations.ts';
import { messageOperations } from './messages.operations.ts';
import { phoneNumberOperations } from './phone-numbers.operations.ts';
import { sandboxOperations } from './sandbox.operations.ts';
import { segmentOperations } from './segments.operations.ts';
import { suppressionOperations } from './suppressions.operations.ts';
import { templateOperations } from './templates.operations.ts';
import { topicOperations } from './topics.operations.ts';
import { organizationOperations, verificationOperations } from './verifications.operations.ts';
import { webhookOperations } from './webhooks.operations.ts';

export * from './api-keys.operations.ts';
export * from './audit.operations.ts';
export * from './broadcasts.operations.ts';
export * from './contacts.operations.ts';
export * from './email-domains.operations.ts';
export * from './messages.operations.ts';
export * from './phone-numbers.operations.ts';
export * from './resend-compatible.operations.ts';
export * from './sandbox.operations.ts';
export * from './segments.operations.ts';
export * from './suppressions.operations.ts';
export * from './templates.operations.ts';
export * from './topics.operations.ts';
export * from './verifications.operations.ts';
export * from './webhooks.operations.ts';

/** Every operation of the public API, in one list: the API mounts each, the SDK has a method for each (tests hold both). */
export const operations = [
  ...Object.values(apiKeyOperations),
  ...Object.values(auditOperations),
  ...Object.values(broadcastOperations),
  ...Object.values(contactOperations),
  ...Object.values(emailDomainOperations),
  ...Object.values(messageOperations),
  ...Object.values(phoneNumberOperations),
  ...Object.values(sandboxOperations),
  ...Object.values(segmentOperations),
  ...Object.values(suppressionOperations),
  ...Object.values(templateOperations),
  ...Object.values(topicOperations),
  ...Object.values(verificationOperations),
  ...Object.values(organizationOperations),
  ...Object.values(webhookOperations),
];
