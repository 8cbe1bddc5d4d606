// Shared jest settings: swc compiles TypeScript to CommonJS (ts-jest cannot use TypeScript 7).
const os = require('node:os');
const path = require('node:path');
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@scalar|@prisma/schema-engine-wasm)/)'],
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  globalSetup: path.join(__dirname, 'packages/testing/src/global-setup.ts'),
  setupFiles: [path.join(__dirname, 'packages/testing/src/worker-database.ts')],
  testTimeout: 30000,
  // files mostly wait on Postgres, Redis and the processes they start, so two run at once even on 2 cores (jest's
  // default there is one); each worker has its own database (packages/testing/src/worker-database.ts)
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
  // the default output, and each file's time for the list of the slowest at the end of `npm test`
  reporters: ['default', path.join(__dirname, 'scripts/test-times-reporter.js')],
};
