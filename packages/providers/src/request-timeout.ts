/**
 * How long one request to a provider's domain or number API may take (Resend and SES domains, Telnyx and Twilio
 * numbers): an operator or a customer is waiting on the answer, and a hung provider must not hold the request.
 */
export const REQUEST_TIMEOUT_MS = 10_000;
