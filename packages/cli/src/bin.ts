import { ConfigError, loadConfig, type Config } from '@tidings/config';
import { isHelpRequest, runCli, usage } from './cli.ts';

async function main() {
  // help needs no configuration, so it works before the environment is set up
  if (isHelpRequest(process.argv.slice(2))) {
    console.log(usage);
    return 0;
  }
  let config: Config;
  try {
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
