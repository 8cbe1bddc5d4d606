export { toMessage, toStatusEvent } from './message.mapper.ts';
export { ALLOWED_FROM, EVENT_OF_STATUS, changeMessageStatus, type StatusChange } from './message-status.ts';
export { parseEmail, parseE164, normalizeRecipient } from './recipients.ts';
export { resolveContent, type ResolvedContent } from './resolve-content.ts';
export { loadSenderResolver, SANDBOX_DEFAULT_SENDERS } from './resolve-sender.ts';
export { sendMessages, sendMessage, type BatchResult } from './send-messages.ts';
export { listMessages, listMessagesJson, getMessage, type MessageFilter } from './query-messages.ts';
export { getDeliveryOverview, type DailyDeliveryCounts, type DeliveryOverview, type DeliveryTotals } from './delivery-overview.ts';
export { cancelMessage } from './cancel-message.ts';
export { getMessageSource } from './message-source.ts';
export { withInlineImages, INLINE_IMAGE_PREVIEW_BYTES } from './inline-images.ts';
export { rescheduleMessage } from './reschedule-message.ts';
export { getResendEmail, rescheduleResendEmail, cancelResendEmail, sendResendEmail, sendResendEmails } from './resend-compatible.ts';
export { claimForSending, markSent, markFailed, recordAttemptError, recordProviderClaim, lastUnansweredProvider, type Claim } from './delivery.ts';
export { sendThroughProviders, SendAttemptFailed, attemptErrorOf } from './send-through-providers.ts';
export { applyProviderOutcome, type ProviderOutcome } from './provider-outcome.ts';
export { recordEngagement, recordTrackingHit, SAME_CLICK_WINDOW_MINUTES, type EngagementReport } from './engagement.ts';
export { reportSandboxOutcome } from './sandbox-outcome.ts';
export { receiveInboundMessage, type InboundMessage, type InboundResult } from './inbound.ts';
export { receiveSandboxInbound } from './sandbox-inbound.ts';
export { smsKeywordOf, type SmsKeyword } from './sms-keywords.ts';
export { failAsRecipientStopped } from './delivery.ts';
export { receiveProviderCallback, type CallbackProvider } from './provider-callbacks.ts';
export { requeueStrandedMessages } from './requeue-stranded.ts';
export {
  AttachmentUnavailableError,
  attachmentFailure,
  openAttachments,
  dropSuppressedRecipients,
  outgoingEmail,
  outgoingSms,
  type AttachmentFetchOptions,
} from './outgoing-message.ts';
