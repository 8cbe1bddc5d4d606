import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A throwaway self-signed certificate for `hostname`, made for this run with openssl (no key is kept in the
 * repository), valid one day.
 * @example const { cert, key } = makeTestCertificate('files.test'); https.createServer({ cert, key }, handler);
 */
export function makeTestCertificate(hostname: string): { cert: string; key: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tidings-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${dir}/key.pem`,
        '-out',
        `${dir}/cert.pem`,
        '-days',
        '1',
        '-subj',
        `/CN=${hostname}`,
        '-addext',
        `subjectAltName=DNS:${hostname}`,
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(`${dir}/cert.pem`, 'utf8'), key: readFileSync(`${dir}/key.pem`, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true });
  }
}
