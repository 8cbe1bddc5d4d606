import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startApi } from './setup.ts';

// The published shape: build the ESM and CJS bundles now (never a stale dist), then use each from a plain Node
// process, as an application would after `npm i @tidings/sdk`, against the running API.
const packageDir = path.resolve(__dirname, '..');
const run = promisify(execFile);
let api: Awaited<ReturnType<typeof startApi>>;

beforeAll(async () => {
  execFileSync('npm', ['run', 'build'], { cwd: packageDir, stdio: 'pipe', timeout: 120_000 });
  api = await startApi();
}, 150_000);
afterAll(() => api.close());

const script = (load: string) => `
${load}
const tidings = new Tidings();
tidings.apiKeys.create({ name: 'from dist' })
  .then(async (created) => {
    const ids = [];
    for await (const key of tidings.apiKeys.list({ limit: 1 })) ids.push(key.id);
    const error = await tidings.apiKeys.disable('key_missing').catch((e) => e);
    const signature = await webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    console.log(JSON.stringify({ created: created.name, ids, isTidingsError: error instanceof TidingsError, code: error.code, signature }));
  })
  .catch((e) => { console.error(e); process.exit(1); });
`;

describe('the built package', () => {
  it.each([
    ['CommonJS (require)', ['-e', script("const { Tidings, TidingsError, webhookSignature } = require('@tidings/sdk');")]],
    ['ESM (import)', ['--input-type=module', '-e', script("import { Tidings, TidingsError, webhookSignature } from '@tidings/sdk';")]],
  ])('works from %s, configured by TIDINGS_API_KEY and TIDINGS_BASE_URL', async (_name, args) => {
    const { key } = await api.org();
    const { stdout } = await run(process.execPath, args as string[], {
      cwd: packageDir,
      env: { PATH: process.env.PATH, TIDINGS_API_KEY: key, TIDINGS_BASE_URL: api.baseUrl },
      timeout: 20_000,
    });
    const result = JSON.parse(stdout);
    expect(result.created).toBe('from dist');
    expect(result.ids).toHaveLength(2);
    expect(result).toMatchObject({ isTidingsError: true, code: 'NOT_FOUND', signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' });
  });

  it('ships no runtime dependency: the bundles import nothing', () => {
    const bundles = ['dist/index.js', 'dist/index.mjs'].map((f) => readFileSync(path.join(packageDir, f), 'utf8'));
    for (const code of bundles) {
      expect(code).not.toMatch(/require\(["'](?!\.)/);
      expect(code).not.toMatch(/^import .* from ["'](?!\.)/m);
    }
  });
});
