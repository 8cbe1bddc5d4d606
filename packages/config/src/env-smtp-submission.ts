// The environment's SMTP submission (apps/smtp): its ports, TLS and limits.
import { z } from 'zod';
import { port } from './env-parts.ts';

/** The SMTP submission app's settings. */
export const smtpSubmissionEnv = {
  // ---- SMTP submission (apps/smtp): apps that speak only SMTP send with an API key as the password
  /** Submission with STARTTLS (587 in the image). */
  SMTP_SUBMISSION_PORT: port.default(2587),
  /** Submission over implicit TLS (465 in the image). */
  SMTPS_PORT: port.default(2465),
  /** Where the SMTP app serves /metrics, /healthz and /readyz (0: any free port). */
  SMTP_METRICS_PORT: port.default(3006),
  /** The TLS certificate and its key, PEM text or a path to a PEM file; unset outside production: a self-signed pair made at start. */
  SMTP_TLS_CERT: z.string().min(1).optional(),
  SMTP_TLS_KEY: z.string().min(1).optional(),
  /** The host name mail clients connect to, shown with the SMTP settings; the host of PUBLIC_API_URL when unset. */
  SMTP_PUBLIC_HOST: z.string().min(1).max(253).optional(),
  /** Open connections of both ports together, and of one client address; past them a new connection gets 421. */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(1000),
  SMTP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Mails received at once (MAIL FROM to the answer of DATA) per API key and per client address: past them MAIL FROM gets 451. */
  SMTP_MAX_MAILS_PER_KEY: z.coerce.number().int().min(1).max(1000).default(8),
  SMTP_MAX_MAILS_PER_ADDRESS: z.coerce.number().int().min(1).max(1000).default(16),
  /** Content bytes of one API key's mails being received and parsed at once; the mail that would pass it gets 452 and its connection ends. */
  SMTP_MAX_RECEIVING_BYTES_PER_KEY: z.coerce
    .number()
    .int()
    .min(1024)
    .default(48 * 1024 * 1024),
  /** The whole of one command line, from the previous answer to its end, and the whole of one DATA content: past them 421 and the connection ends. */
  SMTP_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  SMTP_DATA_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
  /** MIME parts one mail may hold (containers included); past it 554. */
  SMTP_MAX_MIME_PARTS: z.coerce.number().int().min(2).max(10_000).default(100),
};
