export * from './domain-name.ts';
export { checkDnsRecords, createDnsResolver, matchesRecord } from './dns-check.ts';
export * from './email-domain.service.ts';
export * from './verify-email-domain.ts';
export * from './mark-verified.ts';
