module.exports = {
  ...require('../../jest.preset.js'),
  // The schema engine (WebAssembly) keeps a handle open after its work is done; the CLI exits explicitly for the same reason.
  forceExit: true,
};
