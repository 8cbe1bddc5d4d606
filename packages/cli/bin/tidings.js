#!/usr/bin/env node
// The operator's command. In a checkout it runs the TypeScript sources through tsx, so there is no build to forget;
// where only the build is installed (the production image), it runs dist/bin.js.
const { existsSync } = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const source = path.join(__dirname, '../src/bin.ts');
if (existsSync(source)) {
  const result = spawnSync(process.execPath, [require.resolve('tsx/cli'), source, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
} else {
  require('../dist/bin.js');
}
