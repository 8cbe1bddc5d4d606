import type { Command } from '../command.ts';

/**
 * `tidings doctor`: every missing or weak production setting at once. The bin runs it before the configuration is
 * read (a setting the configuration refuses is one of its findings); this entry gives it its place in the usage.
 */
export const doctor: Command = {
  name: 'doctor',
  summary: 'every missing or weak production setting, in one list; exit 1 when there is any',
  async run(ctx) {
    const { runDoctor } = await import('../doctor.ts');
    return runDoctor(process.env, ctx);
  },
};
