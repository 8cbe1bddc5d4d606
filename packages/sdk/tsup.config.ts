import { defineConfig } from 'tsup';

// ESM and CJS bundles for any runtime with fetch and Web Crypto (no node: imports); types come from tsc.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  dts: false,
  external: ['@tidings/contracts'],
});
