// Whether the CLI's build (dist/bin.js) is older than its sources: bin/tidings.js then runs the sources, and the test
// setups (packages/cli's jest global setup, `npm test`) build it first.
const { existsSync, readFileSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const built = path.join(root, 'dist/bin.js');
const source = path.join(root, 'src/bin.ts');

/** Whether a source the build was made from (per its metafile) changed after it; false where no source is present. */
function isBuildStale() {
  let inputs;
  try {
    inputs = Object.keys(JSON.parse(readFileSync(path.join(root, 'dist/metafile-cjs.json'), 'utf8')).inputs);
  } catch {
    return existsSync(source); // a build without its metafile: trust it only where there are no sources
  }
  const builtAt = statSync(built).mtimeMs;
  return inputs.some((input) => {
    try {
      return statSync(path.join(root, input)).mtimeMs > builtAt;
    } catch {
      return false; // a source that is gone (the production image has none)
    }
  });
}

module.exports = { built, source, isBuildStale };
