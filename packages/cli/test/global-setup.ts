// The CLI suite's jest global setup: the suites' own (packages/testing/src/global-setup.ts), then the CLI built if its
// sources changed since the last build. The tests run bin/tidings.js as operators do; over stale sources it would run
// each command through tsx (seconds a command, and a note on stderr the tests do not expect).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import suitesGlobalSetup from '../../testing/src/global-setup.ts';

const { isBuildStale } = require('../bin/build-state.js') as { isBuildStale(): boolean };

export default async function globalSetup(...args: Parameters<typeof suitesGlobalSetup>) {
  await suitesGlobalSetup(...args);
  if (isBuildStale())
    execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, '../../../scripts/build.ts')], { cwd: path.join(__dirname, '..'), stdio: 'pipe' });
}
