// Makes the emitted declarations stand alone: tsc keeps the sources' `.ts` specifiers (consumers resolve `.js`),
// and `@tidings/contracts` (a workspace package that is not published) points at its declarations emitted beside
// ours, so a consumer needs only zod's types.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const types = new URL('../dist/types/', import.meta.url).pathname;
const contractsIndex = join(types, 'contracts/src/index.js');
for (const entry of readdirSync(types, { recursive: true })) {
  if (!String(entry).endsWith('.d.ts')) continue;
  const file = join(types, String(entry));
  let toContracts = relative(dirname(file), contractsIndex);
  if (!toContracts.startsWith('.')) toContracts = `./${toContracts}`;
  const text = readFileSync(file, 'utf8')
    .replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'")
    .replace(/from\s+'@tidings\/contracts'/g, `from '${toContracts}'`);
  writeFileSync(file, text);
}
