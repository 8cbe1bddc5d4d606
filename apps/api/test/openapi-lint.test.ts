import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

type Finding = { code: string; message: string; severity: number; path: string[] };
const SEVERITY = ['error', 'warn', 'info', 'hint'];

// Spectral's own OpenAPI ruleset, run offline by its command-line tool on the document the API serves.
describe('the served OpenAPI document under Spectral (spectral:oas)', () => {
  it('has no errors and no warnings', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tidings-spectral-'));
    try {
      const document = path.join(dir, 'openapi.json');
      const ruleset = path.join(dir, '.spectral.json');
      writeFileSync(document, await (await t.app.request('/v1/openapi.json')).text());
      writeFileSync(ruleset, JSON.stringify({ extends: [['spectral:oas', 'recommended']] }));
      const cli = require.resolve('@stoplight/spectral-cli/dist/index.js');
      // exits 1 when it finds errors: the findings are read either way
      const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', document, '--ruleset', ruleset, '--format', 'json', '--quiet', '--fail-severity', 'hint'], {
        maxBuffer: 64 * 1024 * 1024,
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
      const findings = (JSON.parse(stdout || '[]') as Finding[]).map((f) => `${SEVERITY[f.severity]} ${f.code} at ${f.path.join('.')}: ${f.message}`);
      expect(findings.filter((f) => f.startsWith('error') || f.startsWith('warn'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000); // the CLI needs about 12 s of CPU: on a loaded machine a minute of wall time was not always enough
});
