import { Hono } from 'hono';

export type FakeReceivedEmail = { id: string; from: string; to: string[]; subject: string; text: string | null; html: string | null; createdAt: string };

/** GET /emails/receiving/{id} as Resend answers it: the received email with its content, 404 `not_found` otherwise. */
export function resendReceivingRoutes(received: Map<string, FakeReceivedEmail>) {
  return new Hono().get('/emails/receiving/:id', (c) => {
    const email = received.get(c.req.param('id'));
    if (!email) return c.json({ statusCode: 404, name: 'not_found', message: 'Email not found' }, 404);
    return c.json({
      object: 'email',
      id: email.id,
      to: email.to,
      from: email.from,
      created_at: email.createdAt,
      subject: email.subject,
      bcc: null,
      cc: null,
      reply_to: null,
      received_for: email.to,
      html: email.html,
      text: email.text,
      headers: {},
      message_id: `<${email.id}@fake-resend.test>`,
      attachments: [],
    });
  });
}
