import { defineConfig } from 'tsup';
import { appBuild } from '../../tsup.apps.ts';

// public/ (the API reference's browser bundle) is copied beside the bundle: docs.routes.ts reads it from there
export default defineConfig({ ...appBuild({ server: 'src/server.ts' }), publicDir: 'public' });
