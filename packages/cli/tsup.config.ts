import { defineConfig } from 'tsup';
import { appBuild } from '../../tsup.apps.ts';

// the metafile lists every source compiled in: bin/tidings.js runs the sources instead while one is newer
export default defineConfig({ ...appBuild({ bin: 'src/bin.ts' }), metafile: true });
