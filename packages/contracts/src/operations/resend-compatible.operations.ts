import { idParam } from '../common.ts';
import { defineOperation, json } from '../operation.ts';
import {
  ResendBatchBody,
  ResendBatchHeaders,
  ResendBatchResponse,
  ResendEmail,
  ResendEmailId,
  ResendEmailRef,
  ResendSendEmailBody,
  ResendUpdateEmailBody,
} from '../resend-compatible.ts';
import { messageOperations } from './messages.operations.ts';

/** The tag of the Resend-compatible operations in the OpenAPI document. */
export const RESEND_COMPATIBLE_TAG = 'Resend compatible';
const tags = [RESEND_COMPATIBLE_TAG];
// at the API's root, where the Resend SDK calls them with RESEND_BASE_URL set to the API
const servers = [{ url: '/' }];
const EmailIdParam = idParam('msg');
const errors =
  "Errors are `{ statusCode, name, message }` with Resend's names (`validation_error`, `missing_api_key`, `invalid_api_key`, `not_found`, `rate_limit_exceeded`, ...).";

/**
 * Resend's email endpoints over message.send, sendBatch, get and cancel: the same keys, rules, rate limit and
 * idempotency, in Resend's shapes. Not among `operations` (the /v1 operations the SDK has a method for).
 */
export const resendCompatibleOperations = {
  send: defineOperation({
    operationId: 'resend.emails.send',
    method: 'post',
    path: '/emails',
    servers,
    permission: messageOperations.send.permission,
    idempotent: true,
    tags,
    summary: 'Send an email (Resend compatible)',
    description: `message.send in Resend's shape: answers \`{ id }\`, a Tidings message id. Takes \`Idempotency-Key\`. ${errors}`,
    request: { body: { required: true, ...json(ResendSendEmailBody) } },
    responses: { 200: { description: 'The accepted email', ...json(ResendEmailId) } },
  }),
  sendBatch: defineOperation({
    operationId: 'resend.batch.send',
    method: 'post',
    path: '/emails/batch',
    servers,
    permission: messageOperations.sendBatch.permission,
    idempotent: true,
    tags,
    summary: 'Send up to 100 emails (Resend compatible)',
    description: `message.sendBatch in Resend's shape: a JSON array of emails. Takes \`Idempotency-Key\`. ${errors}`,
    request: { headers: ResendBatchHeaders, body: { required: true, ...json(ResendBatchBody) } },
    responses: { 200: { description: 'The accepted emails', ...json(ResendBatchResponse) } },
  }),
  get: defineOperation({
    operationId: 'resend.emails.get',
    method: 'get',
    path: '/emails/{id}',
    servers,
    permission: messageOperations.get.permission,
    idempotent: false,
    tags,
    summary: 'Get an email (Resend compatible)',
    description: `message.get in Resend's shape; \`last_event\` is the message's status (or its last engagement). ${errors}`,
    request: { params: EmailIdParam },
    responses: { 200: { description: 'The email', ...json(ResendEmail) } },
  }),
  update: defineOperation({
    operationId: 'resend.emails.update',
    method: 'patch',
    path: '/emails/{id}',
    servers,
    permission: messageOperations.cancel.permission,
    idempotent: false,
    errors: { 409: 'Message is queued: only scheduled messages can be rescheduled' },
    tags,
    summary: 'Reschedule an email (Resend compatible)',
    description: `Moves a scheduled email to \`scheduled_at\` (409 once it is no longer scheduled). ${errors}`,
    request: { params: EmailIdParam, body: { required: true, ...json(ResendUpdateEmailBody) } },
    responses: { 200: { description: 'The rescheduled email', ...json(ResendEmailRef) } },
  }),
  cancel: defineOperation({
    operationId: 'resend.emails.cancel',
    method: 'post',
    path: '/emails/{id}/cancel',
    servers,
    permission: messageOperations.cancel.permission,
    idempotent: false,
    errors: { 409: 'Message is sent: only scheduled or queued messages can be canceled' },
    tags,
    summary: 'Cancel an email (Resend compatible)',
    description: `message.cancel: only while scheduled or queued (409 otherwise). ${errors}`,
    request: { params: EmailIdParam },
    responses: { 200: { description: 'The canceled email', ...json(ResendEmailRef) } },
  }),
};
