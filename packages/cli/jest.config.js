// With room: each `tidings` call starts a process, and the quick-start test runs the whole product (npm start) beside
// it, which on a loaded 2-core machine takes tens of seconds a call. The global setup also builds the CLI when its
// sources changed (test/global-setup.ts).
const path = require('node:path');
const preset = require('../../jest.preset.js');
module.exports = { ...preset, testTimeout: 120_000, globalSetup: path.join(__dirname, 'test/global-setup.ts') };
