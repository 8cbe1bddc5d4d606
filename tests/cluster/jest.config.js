// `npm run test:cluster`: our processes on a real three-master Redis Cluster (each file starts and stops its own,
// on ports 7100-7102), and replicas of every process on one Redis. Apart from `npm test`: they start the product as
// processes and take minutes. One file at a time: the cluster's ports are fixed.
const preset = require('../../jest.preset.js');

module.exports = { ...preset, rootDir: __dirname, testMatch: ['<rootDir>/*.test.ts'], testTimeout: 10 * 60_000, maxWorkers: 1 };
