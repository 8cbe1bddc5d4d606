// `npm run test:faults`: the fault-injection scenarios, apart from `npm test` (they start the whole product as
// processes and take minutes). One at a time: each already runs several processes.
const preset = require('../../jest.preset.js');

module.exports = { ...preset, rootDir: __dirname, testMatch: ['<rootDir>/*.test.ts'], testTimeout: 30 * 60_000, maxWorkers: 1 };
