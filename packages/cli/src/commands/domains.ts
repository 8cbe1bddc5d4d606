import { json, type Command } from '../command.ts';

/** A development install's way past DNS, so live email and its audience features can be tried on a laptop. */
const markVerified: Command = {
  name: 'domains mark-verified',
  summary:
    'Development installs only: marks an email domain of the organization verified without DNS (audited), so live email from it, with its unsubscribe, preference page and tracking, can be tried locally. Refused when NODE_ENV=production.',
  options: {
    org: { type: 'string', required: true, description: 'the organization’s id' },
    domain: { type: 'string', required: true, description: 'the domain’s name, added first through the API or the dashboard' },
  },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.markEmailDomainVerified(deps, String(values.org), String(values.domain))));
    return 0;
  },
};

export const domains = [markVerified];
