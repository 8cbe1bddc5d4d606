// `npm run test:replica`: the product on a streaming replica of the local Postgres (127.0.0.1:5433) and PgBouncer in
// transaction mode (127.0.0.1:6432), both started and removed by the suite. Apart from `npm test`: it starts the
// product as processes and takes minutes. One file at a time: the ports are fixed.
const preset = require('../../jest.preset.js');

module.exports = { ...preset, rootDir: __dirname, testMatch: ['<rootDir>/*.test.ts'], testTimeout: 30 * 60_000, maxWorkers: 1 };
