// jest setupFiles: each test file reads the database of its suite and jest worker (made by global-setup.ts) from
// TEST_DATABASE_URL, and passes it on to the processes it starts.
import { testDatabaseUrl } from './test-database.ts';

process.env.TEST_DATABASE_URL = testDatabaseUrl().url;
