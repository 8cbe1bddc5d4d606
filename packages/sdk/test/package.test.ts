import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startApi } from './setup.ts';

// The published shape: `npm pack` (whose prepack builds, so never a stale dist), the tarball installed into a fresh
// project outside the repository, then used from CommonJS and ESM against the running API and type-checked by tsc
// as a consumer's code would be.
const packageDir = path.resolve(__dirname, '..');
const repoRoot = path.resolve(packageDir, '../..');
const run = promisify(execFile);
let api: Awaited<ReturnType<typeof startApi>>;
let project: string;
let packed: { files: { path: string }[] };

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'tidings-sdk-consumer-'));
  rmSync(path.join(packageDir, 'dist'), { recursive: true, force: true }); // so the tarball proves prepack builds
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', project], { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 }).toString();
  // the build's own output comes first, then the JSON report
  const [result] = JSON.parse(output.slice(output.search(/^\[$/m)));
  packed = result;
  // No runtime dependencies (asserted below), so unpacking is all `npm install <tarball>` would do.
  const installed = path.join(project, 'node_modules', '@tidings', 'sdk');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(project, result.filename), '-C', installed, '--strip-components=1']);
  // what a fresh TypeScript project for Node has besides typescript: Node's types
  mkdirSync(path.join(project, 'node_modules', '@types'));
  symlinkSync(path.join(repoRoot, 'node_modules', '@types', 'node'), path.join(project, 'node_modules', '@types', 'node'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  api = await startApi();
}, 150_000);
afterAll(async () => {
  await api?.close();
  rmSync(project, { recursive: true, force: true });
});

const script = (load: string) => `
${load}
const tidings = new Tidings();
tidings.apiKeys.create({ name: 'from the tarball' })
  .then(async (created) => {
    const ids = [];
    for await (const key of tidings.apiKeys.list({ limit: 1 })) ids.push(key.id);
    const error = await tidings.apiKeys.disable('key_missing').catch((e) => e);
    const signature = await webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    console.log(JSON.stringify({ created: created.name, ids, isTidingsError: error instanceof TidingsError, code: error.code, signature }));
  })
  .catch((e) => { console.error(e); process.exit(1); });
`;

// A consumer's code in each module kind; each wrong call must be a type error, so the types are not `any`.
const consumer = (load: string) => `${load}
export async function main(): Promise<string> {
  const tidings = new Tidings({ apiKey: 'sk_test_x', baseUrl: 'http://localhost:3000/v1', timeoutMs: 5_000 });
  const message = await tidings.messages.send({ channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
  const status: string = message.status;
  for await (const contact of tidings.contacts.list({ limit: 10 })) console.log(contact.email);
  const page: Page<ApiKey> = await tidings.apiKeys.list().page();
  const params: SendMessageParams = { channelType: 'sms', to: '+14155550123', body: 'Hi' };
  // @ts-expect-error: channelType is 'email' or 'sms'
  await tidings.messages.send({ ...params, channelType: 'fax' });
  // @ts-expect-error: an API key's id is a string
  const id: number = page.data[0].id;
  await tidings.segments.create({ name: 'Pro', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
  // @ts-expect-error: criteria hold \`all\` or \`any\`
  await tidings.segments.create({ name: 'Pro', criteria: { every: [] } });
  const error = await tidings.apiKeys.disable('key_1').catch((e: unknown) => e);
  if (error instanceof TidingsError) return error.code + error.requestId + String(id);
  return status + verifyWebhook.name;
}
`;
const imports = '{ Tidings, TidingsError, verifyWebhook, type ApiKey, type Page, type SendMessageParams }';

describe('the packed package', () => {
  it('holds the ESM and CJS bundles with their declarations, the README, the licence and nothing else, and depends on nothing', () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/index.mjs',
        'dist/index.cjs',
        'dist/index.d.mts',
        'dist/index.d.cts',
        'dist/openapi.generated.d.cts',
        'dist/openapi.generated.d.mts',
      ]),
    );
    expect(files.filter((f) => !/^(package\.json|README\.md|LICENSE|dist\/.+\.(mjs|cjs|d\.mts|d\.cts|map))$/.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(project, 'node_modules/@tidings/sdk/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ license: 'MIT', repository: { directory: 'packages/sdk' } });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies).toBeUndefined();
    for (const bundle of ['index.cjs', 'index.mjs']) {
      const code = readFileSync(path.join(project, 'node_modules/@tidings/sdk/dist', bundle), 'utf8');
      expect(code).not.toMatch(/require\(["'](?!\.)/);
      expect(code).not.toMatch(/^import .* from ["'](?!\.)/m);
    }
    const declarations = files.filter((f) => f.endsWith('.d.mts') || f.endsWith('.d.cts'));
    for (const file of declarations) {
      // only relative imports: no zod, no workspace package (statements only: the API's examples in comments hold `"from": ...`)
      const text = readFileSync(path.join(project, 'node_modules/@tidings/sdk', file), 'utf8');
      expect(text).not.toMatch(/^(import|export)\b[^\n]*\bfrom\s*["'](?!\.)/m);
      expect(text).not.toMatch(/\bimport\(\s*["'](?!\.)/);
    }
  });

  it.each([
    ['CommonJS (require)', ['-e', script("const { Tidings, TidingsError, webhookSignature } = require('@tidings/sdk');")]],
    ['ESM (import)', ['--input-type=module', '-e', script("import { Tidings, TidingsError, webhookSignature } from '@tidings/sdk';")]],
  ])('works from %s, configured by TIDINGS_API_KEY and TIDINGS_BASE_URL', async (_name, args) => {
    const { key } = await api.org();
    const { stdout } = await run(process.execPath, args as string[], {
      cwd: project,
      env: { PATH: process.env.PATH, TIDINGS_API_KEY: key, TIDINGS_BASE_URL: api.baseUrl },
      timeout: 20_000,
    });
    const result = JSON.parse(stdout);
    expect(result.created).toBe('from the tarball');
    expect(result.ids).toHaveLength(2);
    expect(result).toMatchObject({ isTidingsError: true, code: 'NOT_FOUND', signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' });
  });

  it.each([
    ['nodenext, CommonJS and ESM files', 'nodenext', 'nodenext', { 'use.cts': `import ${imports} from '@tidings/sdk';`, 'use.mts': `import ${imports} from '@tidings/sdk';` }],
    ['a bundler, ESM', 'esnext', 'bundler', { 'use.ts': `import ${imports} from '@tidings/sdk';` }],
  ])('type-checks a consumer (%s) with strict settings and skipLibCheck off', async (_name, module, moduleResolution, files) => {
    const dir = mkdtempSync(path.join(project, 'tsc-'));
    for (const [file, load] of Object.entries(files)) writeFileSync(path.join(dir, file), consumer(load));
    const compilerOptions = { strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', lib: ['es2022'], types: ['node'], module, moduleResolution };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts', '*.cts', '*.mts'] }));
    const tsc = path.join(repoRoot, 'node_modules', '.bin', 'tsc');
    const result = await run(tsc, ['-p', dir], { cwd: dir, timeout: 30_000 }).catch((e: { stdout: string }) => e);
    expect(result.stdout).toBe('');
  });
});
