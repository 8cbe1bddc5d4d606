#!/usr/bin/env node
// The operator's command. It runs the build (dist/bin.js, made by `npm run build` and on `npm install`), which
// answers in a fraction of a second. In a checkout whose sources changed since that build, it runs the sources
// through tsx instead (slower, never stale) and says how to rebuild.
const { existsSync, readFileSync, statSync } = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.join(__dirname, '..');
const built = path.join(root, 'dist/bin.js');
const source = path.join(root, 'src/bin.ts');

/** Whether a source the build was made from (per its metafile) changed after it; false where no source is present. */
function isBuildStale() {
  let inputs;
  try {
    inputs = Object.keys(JSON.parse(readFileSync(path.join(root, 'dist/metafile-cjs.json'), 'utf8')).inputs);
  } catch {
    return existsSync(source); // a build without its metafile: trust it only where there are no sources
  }
  const builtAt = statSync(built).mtimeMs;
  return inputs.some((input) => {
    try {
      return statSync(path.join(root, input)).mtimeMs > builtAt;
    } catch {
      return false; // a source that is gone (the production image has none)
    }
  });
}

if (existsSync(built) && !isBuildStale()) {
  require(built);
} else if (existsSync(source)) {
  if (existsSync(built)) process.stderr.write('tidings: the sources changed since the build; running them (`npm run build -w @tidings/cli` makes it fast again)\n');
  const result = spawnSync(process.execPath, [require.resolve('tsx/cli'), source, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
} else {
  process.stderr.write('tidings: no build found; run `npm run build -w @tidings/cli`\n');
  process.exit(1);
}
