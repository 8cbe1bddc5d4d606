import { ConfigError, loadConfig, loadEnvFile, type Config } from '@tidings/config';
import { isHelpRequest, runCli, usage } from './cli.ts';
import { runDoctor } from './doctor.ts';

async function main() {
  // help needs no configuration, so it works before the environment is set up
  if (isHelpRequest(process.argv.slice(2))) {
    console.log(usage);
    return 0;
  }
  let config: Config;
  try {
    loadEnvFile(); // .env of the current directory, when there is one: the same settings as `npm start`
    // doctor judges the environment itself, so a setting loadConfig refuses is one of its findings, not a failure
    if (process.argv[2] === 'doctor') return runDoctor(process.env, { out: console.log, err: console.error });
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 1;
  }
  return runCli(process.argv.slice(2), config);
}

// exit explicitly: the schema engine and pools may hold the event loop open after their work is done
main().then((code) => process.exit(code));
