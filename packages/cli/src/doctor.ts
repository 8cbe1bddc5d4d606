import { productionProblems } from '@tidings/config';

/**
 * `tidings doctor`: every missing or weak production setting of the environment in one list, exit 1; exit 0 when
 * there is none. Reads no database and prints no value, so it runs first, before `migrate` (the compose file's
 * `migrate` service does).
 * @example process.exitCode = runDoctor(process.env, console);
 */
export function runDoctor(env: Record<string, string | undefined>, io: { out: (line: string) => void; err: (line: string) => void }): number {
  const problems = productionProblems(env);
  if (!problems.length) {
    io.out('tidings doctor: every setting production needs is present and strong.');
    return 0;
  }
  const width = Math.max(...problems.map((p) => p.name.length));
  io.err(`tidings doctor: ${problems.length} setting${problems.length === 1 ? '' : 's'} to fix before this runs in production:`);
  for (const { name, problem } of problems) io.err(`  ${name.padEnd(width)}  ${problem}`);
  io.err('Set them in .env (see .env.example) or the environment, then run `tidings doctor` again.');
  return 1;
}
