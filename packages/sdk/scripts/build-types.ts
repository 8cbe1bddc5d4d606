// Turns tsc's declarations (dist/tsc/sdk/src/**/*.d.ts) into the published ones: each file twice, as .d.mts for
// `import` and .d.cts for `require` (the package has no "type", so a plain .d.ts would read as CommonJS to an ESM
// consumer), with `.mjs`/`.cjs` specifiers. `@tidings/contracts` (a workspace package that is not published, whose
// types are zod's) becomes dist/contracts.d.{mts,cts}: plain types generated from the same schemas at build time,
// so a consumer needs neither zod nor any other package, and the types cannot drift from what the API validates.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as contracts from '@tidings/contracts';
import { contractsDeclarations } from './contracts-declarations.ts';

const dist = join(__dirname, '..', 'dist');
const tscOut = join(dist, 'tsc', 'sdk', 'src');

const contractsTypes = join(dist, 'tsc', 'contracts', 'src');
const handWritten = readdirSync(contractsTypes, { recursive: true })
  .filter((name) => String(name).endsWith('.d.ts'))
  .map((name) => readFileSync(join(contractsTypes, String(name)), 'utf8'));
const contractsText = contractsDeclarations(contracts, handWritten);

for (const ext of ['mts', 'cts'] as const) {
  const js = ext === 'mts' ? '.mjs' : '.cjs';
  writeFileSync(join(dist, `contracts.d.${ext}`), contractsText);
  for (const entry of readdirSync(tscOut, { recursive: true })) {
    const name = String(entry);
    if (!name.endsWith('.d.ts')) continue;
    const target = join(dist, name.replace(/\.d\.ts$/, `.d.${ext}`));
    let toContracts = relative(dirname(target), join(dist, `contracts${js}`));
    if (!toContracts.startsWith('.')) toContracts = `./${toContracts}`;
    const text = readFileSync(join(tscOut, name), 'utf8')
      // `from './x.ts'` and `import('./x.ts')`, as tsc keeps the sources' specifiers
      .replace(/(['"])(\.{1,2}\/[^'"]+?)\.(ts|js)\1/g, `$1$2${js}$1`)
      .replace(/(['"])@tidings\/contracts\1/g, `$1${toContracts}$1`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}
rmSync(join(dist, 'tsc'), { recursive: true, force: true });
