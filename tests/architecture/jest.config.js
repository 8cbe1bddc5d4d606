// `npm run test:architecture` (part of `npm test`): rules about which package may import which. Reads files only.
const preset = require('../../jest.preset.js');

module.exports = { ...preset, rootDir: __dirname, testMatch: ['<rootDir>/*.test.ts'], globalSetup: undefined, setupFiles: [] };
