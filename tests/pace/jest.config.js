// `npm run test:pace`: delivery at the providers' pace (fake Resend, SES and Telnyx with their limits), apart from
// `npm test` (they start the whole product as processes and take minutes). One at a time.
const preset = require('../../jest.preset.js');

module.exports = { ...preset, rootDir: __dirname, testMatch: ['<rootDir>/*.test.ts'], testTimeout: 20 * 60_000, maxWorkers: 1 };
