// The shared settings, with swc compiling JSX for hono/jsx (the pages are .tsx).
const preset = require('../../jest.preset.js');
module.exports = {
  ...preset,
  transform: {
    '^.+\\.(t|j|mj)sx?$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022', transform: { react: { runtime: 'automatic', importSource: 'hono/jsx' } } },
        module: { type: 'commonjs' },
      },
    ],
  },
  // the browser tests start two servers and a browser each: room for two such files at once on a loaded machine
  testTimeout: 60000,
};
