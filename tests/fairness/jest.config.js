// `npm run test:fairness`: one organization abuses (a large broadcast, a webhook replay, endpoints that hang) while
// another measures its own latency; apart from `npm test` (they start the whole product as processes). One at a time.
const preset = require('../../jest.preset.js');

module.exports = { ...preset, rootDir: __dirname, testMatch: ['<rootDir>/*.test.ts'], testTimeout: 20 * 60_000, maxWorkers: 1 };
