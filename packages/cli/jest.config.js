// One file at a time, with room: each `tidings` call starts a process that compiles TypeScript, and the quick-start
// test runs the whole product (npm start) beside it, which on a loaded 2-core machine takes tens of seconds a call.
const preset = require('../../jest.preset.js');
module.exports = { ...preset, maxWorkers: 1, testTimeout: 120_000 };
