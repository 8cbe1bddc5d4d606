import { defineConfig } from 'tsup';
import { appBuild } from '../../tsup.apps.ts';

export default defineConfig(appBuild({ server: 'src/server.ts' }));
