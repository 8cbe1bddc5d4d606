export * from './phone-number.service.ts';
export * from './purchase-phone-number.ts';
