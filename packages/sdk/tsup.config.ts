import { defineConfig } from 'tsup';

// ESM (.mjs) and CJS (.cjs) bundles for any runtime with fetch and Web Crypto (no node: imports, no dependencies:
// the only imports of @tidings/contracts are types); declarations come from tsc and scripts/build-types.ts.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  outExtension: ({ format }) => ({ js: format === 'cjs' ? '.cjs' : '.mjs' }),
  platform: 'neutral',
  target: 'es2022',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  dts: false,
});
