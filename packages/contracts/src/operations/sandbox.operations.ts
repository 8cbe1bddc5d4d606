import { defineOperation, json } from '../operation.ts';
import { Message, SandboxInboundBody } from '../schemas.ts';

/** The sandbox operations. */
export const sandboxOperations = {
  inbound: defineOperation({
    operationId: 'sandbox.inbound',
    method: 'post',
    path: '/sandbox/inbound',
    permission: 'full',
    idempotent: false,
    tags: ['Sandbox'],
    summary: 'Receive a message in the sandbox',
    description:
      "For `sk_test_` keys only (a live key is 403): a person writes to you, and it arrives exactly as a provider's inbound would - a message with `direction: inbound`, `message.received`, and SMS keywords (STOP, START, HELP...) acting as in production, on the test suppression list only (contacts, shared with live sends, are not changed).",
    request: { body: { required: true, ...json(SandboxInboundBody) } },
    responses: { 201: { description: 'The inbound message', ...json(Message) } },
  }),
};
