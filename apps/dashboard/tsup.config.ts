import { cp } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { appBuild } from '../../tsup.apps.ts';

export default defineConfig({
  ...appBuild({ server: 'src/server.ts' }),
  // the stylesheet and script the pages link, read beside the bundle (`dist/assets`) as beside the sources
  onSuccess: () => cp('src/assets', 'dist/assets', { recursive: true }),
});
