import { isHelpRequest } from './command.ts';

async function main(argv: string[]) {
  // help needs no configuration, so it works before the environment is set up; and it loads nothing else, so it
  // answers at once
  if (isHelpRequest(argv)) {
    const { helpFor } = await import('./cli.ts');
    console.log(helpFor(argv));
    return 0;
  }
  const { ConfigError, loadConfig, loadEnvFile } = await import('@tidings/config');
  let config: ReturnType<typeof loadConfig>;
  try {
    loadEnvFile(); // .env of the current directory, when there is one: the same settings as `npm start`
    // doctor judges the environment itself, so a setting loadConfig refuses is one of its findings, not a failure
    if (argv[0] === 'doctor') {
      const { runDoctor } = await import('./doctor.ts');
      return runDoctor(process.env, { out: console.log, err: console.error });
    }
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 1;
  }
  const { runCli } = await import('./cli.ts');
  return runCli(argv, config);
}

// exit explicitly: the schema engine and pools may hold the event loop open after their work is done
main(process.argv.slice(2)).then((code) => process.exit(code));
