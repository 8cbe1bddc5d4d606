#!/usr/bin/env node
// The operator's command. Runs the TypeScript sources through tsx, so there is no build step to forget.
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const tsxCli = require.resolve('tsx/cli');
const result = spawnSync(process.execPath, [tsxCli, path.join(__dirname, '../src/bin.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
