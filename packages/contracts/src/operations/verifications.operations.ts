import { defineOperation, json } from '../operation.ts';
import { z } from '../z.ts';
import { idParam, listOf } from '../schemas.ts';
import { CheckVerificationBody, CreateVerificationBody, Organization, UpdateOrganizationBody, Verification, VerificationCheck, VerificationListQuery } from '../verifications.ts';

const tags = ['Verify'];
const VerificationIdParam = idParam('ver');

/** The five Verify operations: one-time codes by SMS or email. A `sending` key may call each. */
export const verificationOperations = {
  create: defineOperation({
    operationId: 'verification.create',
    method: 'post',
    path: '/verifications',
    permission: 'sending',
    idempotent: true,
    tags,
    summary: 'Send a one-time code',
    description:
      'Sends a random code to `to` on the transactional lane. Asking again while one is pending for the same `to` resends that verification with a new code after a cooldown (30 s, doubling), at most 5 sends per 10 minutes per `to` (429 with `Retry-After` beyond). An SMS passes the fraud guard first (allowed countries, number type, velocity per prefix).',
    request: { body: { required: true, ...json(CreateVerificationBody) } },
    responses: { 201: { description: 'The verification, pending', ...json(Verification) } },
  }),
  check: defineOperation({
    operationId: 'verification.check',
    method: 'post',
    path: '/verifications/{id}/check',
    permission: 'sending',
    idempotent: false,
    tags,
    summary: 'Check a code',
    errors: { 409: 'Verification is already approved; a code works once' },
    description:
      '`approved` once for the right code (the verification is then spent), `pending` for a wrong one, `max_attempts_reached` after 5 wrong codes, `expired`, `canceled`.',
    request: { params: VerificationIdParam, body: { required: true, ...json(CheckVerificationBody) } },
    responses: { 200: { description: 'The outcome', ...json(VerificationCheck) } },
  }),
  get: defineOperation({
    operationId: 'verification.get',
    method: 'get',
    path: '/verifications/{id}',
    permission: 'sending',
    idempotent: false,
    tags,
    summary: 'Get a verification',
    description: 'Its status and counts; never the code.',
    request: { params: VerificationIdParam },
    responses: { 200: { description: 'The verification', ...json(Verification) } },
  }),
  cancel: defineOperation({
    operationId: 'verification.cancel',
    method: 'post',
    path: '/verifications/{id}/cancel',
    permission: 'sending',
    idempotent: false,
    tags,
    summary: 'Cancel a verification',
    description: 'Its code stops working. One already approved, expired or stopped is a 409.',
    errors: { 409: 'Verification is approved; only a pending one can be canceled' },
    request: { params: VerificationIdParam },
    responses: { 200: { description: 'The canceled verification', ...json(Verification) } },
  }),
  list: defineOperation({
    operationId: 'verification.list',
    method: 'get',
    path: '/verifications',
    permission: 'sending',
    idempotent: false,
    tags,
    summary: 'List verifications',
    description: 'Newest first, filtered by `status` and `channelType`.',
    request: { query: VerificationListQuery },
    responses: { 200: { description: 'A page of verifications', ...json(listOf(Verification, 'VerificationList')) } },
  }),
};

/** The organization's own settings (the SMS fraud guard's countries). */
export const organizationOperations = {
  get: defineOperation({
    operationId: 'organization.get',
    method: 'get',
    path: '/organization',
    permission: 'full',
    idempotent: false,
    tags: ['Organization'],
    summary: 'Get the organization',
    description: 'Its name and the countries an SMS may go to (unless set, those of its numbers).',
    // strict like every query: an unknown parameter is a 400, never ignored
    request: { query: z.strictObject({}) },
    responses: { 200: { description: 'The organization', ...json(Organization) } },
  }),
  update: defineOperation({
    operationId: 'organization.update',
    method: 'patch',
    path: '/organization',
    permission: 'full',
    idempotent: false,
    changesShared: true,
    tags: ['Organization'],
    summary: 'Update the organization',
    description: '`smsCountries`: ISO 3166 alpha-2 codes an SMS may go to; an SMS to any other country is a 400.',
    request: { body: { required: true, ...json(UpdateOrganizationBody) } },
    responses: { 200: { description: 'The organization', ...json(Organization) } },
  }),
};
