// Shared jest settings: swc compiles TypeScript to CommonJS (ts-jest cannot use TypeScript 7).
const path = require('node:path');
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@scalar|@prisma/schema-engine-wasm)/)'],
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  globalSetup: path.join(__dirname, 'packages/testing/src/global-setup.ts'),
  testTimeout: 30000,
};
