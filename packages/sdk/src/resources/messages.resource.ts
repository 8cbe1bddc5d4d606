import type { RequestOptions } from '../client.ts';
import type { OperationBody, OperationQuery, Schemas } from '../operation-types.ts';
import type { PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type BatchItemError = Schemas['BatchItemError'];
export type Message = Schemas['Message'];
export type MessageStatusEvent = Schemas['MessageStatusEvent'];
export type MessageWithEvents = Schemas['MessageWithEvents'];
export type SendBatchResponse = Schemas['SendBatchResponse'];
type SendInput = OperationBody<'message.send'>;
type EmailOnly = 'subject' | 'html' | 'text' | 'cc' | 'bcc' | 'replyTo' | 'headers' | 'attachments';
type SmsOnly = 'body' | 'mediaUrls';
type Never<K extends string> = { [P in K]?: never };
/** An email: subject, html/text, cc, bcc, replyTo, headers, attachments; never an SMS field. */
export type SendEmailParams = Omit<SendInput, 'channelType' | SmsOnly> & { channelType: 'email' } & Never<SmsOnly>;
/** An SMS (an MMS with mediaUrls): body; never an email field, so `subject` on an SMS does not compile. */
export type SendSmsParams = Omit<SendInput, 'channelType' | EmailOnly> & { channelType: 'sms' } & Never<EmailOnly>;
/** A message.send body, one shape per channel. */
export type SendMessageParams = SendEmailParams | SendSmsParams;
export type SendAttachmentParams = NonNullable<SendEmailParams['attachments']>[number];
export type SendBatchParams = { messages: SendMessageParams[] };
export type ListMessagesParams = OperationQuery<'message.list'>;

/** The message operations: send email and SMS, and read them back. `send`/`sendBatch` also take `sending` keys. */
export class Messages extends Resource {
  /**
   * message.send: validates, stores and queues one message (202); a retried call with the same idempotency key
   * (generated per call unless given) returns the first answer instead of sending twice.
   * @example const msg = await tidings.messages.send({ channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
   */
  send(params: SendMessageParams, options?: RequestOptions): Promise<Message> {
    return this.client.call('message.send', { body: params }, options);
  }

  /**
   * message.sendBatch: up to 100 messages, each validated on its own; `data[i]` is the message or null, `errors` the failed indexes.
   * @example const { data, errors } = await tidings.messages.sendBatch({ messages: [{ channelType: 'sms', to: '+14155550123', body: 'Hi' }] });
   */
  sendBatch(params: SendBatchParams, options?: RequestOptions): Promise<SendBatchResponse> {
    return this.client.call('message.sendBatch', { body: params }, options);
  }

  /**
   * message.list: the organization's messages, newest first, with optional filters.
   * @example for await (const msg of tidings.messages.list({ status: 'failed' })) console.log(msg.id, msg.error);
   */
  list(params: ListMessagesParams = {}, options?: RequestOptions): PageIterator<Message> {
    return this.client.list('message.list', { query: params }, options);
  }

  /**
   * message.get: the message with its status history.
   * @example const { status, events } = await tidings.messages.get('msg_123');
   */
  get(id: string, options?: RequestOptions): Promise<MessageWithEvents> {
    return this.client.call('message.get', { params: { id } }, options);
  }

  /**
   * message.cancel: cancels a `scheduled` or `queued` message.
   * @example const { status } = await tidings.messages.cancel('msg_123'); // 'canceled'
   */
  cancel(id: string, options?: RequestOptions): Promise<Message> {
    return this.client.call('message.cancel', { params: { id } }, options);
  }

  /**
   * message.getSource: the RFC 5322 source of an outbound email (`message/rfc822`), as Tidings hands it to the provider.
   * @example const eml = await tidings.messages.getSource('msg_123'); // 'From: ...\r\nTo: ...'
   */
  getSource(id: string, options?: RequestOptions): Promise<string> {
    return this.client.call('message.getSource', { params: { id } }, options);
  }
}
