import { readFile } from 'node:fs/promises';
import { ConfigError, type Config } from '@tidings/config';

export type TlsPair = { cert: string; key: string; isSelfSigned: boolean };

/** PEM text as given, or the contents of the file it names. */
async function pem(value: string): Promise<string> {
  return value.includes('-----BEGIN') ? value : readFile(value, 'utf8');
}

/**
 * The certificate both SMTP ports present: SMTP_TLS_CERT and SMTP_TLS_KEY (PEM text or file paths), or, when both are
 * unset outside production, a self-signed pair for `publicHost` made now (mail clients must then accept it by name:
 * nodemailer's `tls: { rejectUnauthorized: false }`). Production without a pair is a configuration error.
 * @example const tls = await loadTlsPair(deps.config.smtpSubmission, deps.config.env);
 */
export async function loadTlsPair(settings: Config['smtpSubmission'], env: Config['env']): Promise<TlsPair> {
  const { tlsCert, tlsKey, publicHost } = settings;
  if (tlsCert && tlsKey) return { cert: await pem(tlsCert), key: await pem(tlsKey), isSelfSigned: false };
  if (tlsCert || tlsKey) throw new ConfigError('Invalid configuration:\n  SMTP_TLS_CERT and SMTP_TLS_KEY: set both or neither');
  if (env === 'production') throw new ConfigError('Invalid configuration:\n  SMTP_TLS_CERT and SMTP_TLS_KEY: required in production');
  // loaded only here: its X.509 and ASN.1 modules are about 20 MiB of a process that, in production, never needs them
  const { generate } = await import('selfsigned');
  // EC P-256: made in milliseconds, where a 2048-bit RSA key can take a second of start-up
  const made = await generate([{ name: 'commonName', value: publicHost }], { keyType: 'ec', curve: 'P-256' });
  return { cert: made.cert, key: made.private, isSelfSigned: true };
}
