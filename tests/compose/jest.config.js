// `npm run test:compose` (after `npm run build`): docker-compose.yml's service commands with .env.example's values,
// run against the built apps without a container engine. Apart from `npm test`: it needs the build.
const preset = require('../../jest.preset.js');

module.exports = { ...preset, rootDir: __dirname, testMatch: ['<rootDir>/*.test.ts'], testTimeout: 5 * 60_000, maxWorkers: 1 };
