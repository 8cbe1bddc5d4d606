import type { Command } from '../command.ts';

export const migrate: Command = {
  name: 'migrate',
  summary: 'Applies the migrations the database has not seen yet (creating the database when it is missing); a second run applies nothing.',
  async run(ctx) {
    const { migrate } = await import('@tidings/db');
    ctx.err('applying migrations...');
    const { applied } = await migrate(ctx.config.databaseUrl);
    ctx.err(applied.length ? `applied ${applied.length}: ${applied.join(', ')}` : 'database is up to date');
    return 0;
  },
};
