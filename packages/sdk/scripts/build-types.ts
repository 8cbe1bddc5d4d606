// Turns tsc's declarations (dist/tsc/**/*.d.ts) into the published ones: each file twice, as .d.mts for `import` and
// .d.cts for `require` (the package has no "type", so a plain .d.ts would read as CommonJS to an ESM consumer), with
// `.mjs`/`.cjs` specifiers. The API's types are src/openapi.generated.ts (openapi-typescript's reading of the served
// document), declared like any other source file: a consumer needs no other package.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const dist = join(__dirname, '..', 'dist');
const tscOut = join(dist, 'tsc');

for (const ext of ['mts', 'cts'] as const) {
  const js = ext === 'mts' ? '.mjs' : '.cjs';
  for (const entry of readdirSync(tscOut, { recursive: true })) {
    const name = String(entry);
    if (!name.endsWith('.d.ts')) continue;
    const target = join(dist, name.replace(/\.d\.ts$/, `.d.${ext}`));
    // `from './x.ts'` and `import('./x.ts')`, as tsc keeps the sources' specifiers
    const text = readFileSync(join(tscOut, name), 'utf8').replace(/(['"])(\.{1,2}\/[^'"]+?)\.(ts|js)\1/g, `$1$2${js}$1`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}
rmSync(tscOut, { recursive: true, force: true });
