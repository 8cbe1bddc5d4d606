// Imported first by every benchmark entry: the repository's `.env` (or TIDINGS_ENV_FILE), when there is one, fills
// the environment before anything reads it, as for `npm start` and the CLI: one file for every local command. A
// variable already set wins; the apps a benchmark starts inherit the result.
import path from 'node:path';
import { loadEnvFile } from '@tidings/config';

try {
  loadEnvFile(process.env, path.resolve(__dirname, '..'));
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
