#!/usr/bin/env node
// The operator's command. It runs the build (dist/bin.js, made by `npm run build` and on `npm install`), which
// answers in a fraction of a second. In a checkout whose sources changed since that build, it runs the sources
// through tsx instead (slower, never stale) and says how to rebuild.
// V8's compiled code of the ~9 MB of JavaScript a command loads, kept on disk (os.tmpdir()) for the next command:
// a quarter less CPU per command
require('node:module').enableCompileCache?.();
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { built, isBuildStale, source } = require('./build-state.js');

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
