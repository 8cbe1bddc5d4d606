import { json, type Command } from '../command.ts';

const create: Command = {
  name: 'orgs create',
  summary:
    'Creates an organization and its first API key (full permission), printed once. --test: the key is sk_test_ (sandbox only) and the organization gets no live key until `orgs allow-live`. --env prints TIDINGS_ORG_ID=... and TIDINGS_API_KEY=... for `export $(...)`.',
  options: {
    name: { type: 'string', required: true, description: 'the organization’s name' },
    test: { type: 'boolean', description: 'a test organization: its first key is sk_test_, and live keys wait for allow-live' },
    env: { type: 'boolean', description: 'print shell assignments instead of JSON' },
  },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    const result = await core.createOrganization(deps, { name: String(values.name), mode: values.test ? 'test' : 'live' });
    // --env: shell assignments, so `export $(tidings orgs create ... --env)` leaves the id and key in the shell
    ctx.out(values.env ? `TIDINGS_ORG_ID=${result.organization.id}\nTIDINGS_API_KEY=${result.apiKey.key}` : json(result));
    return 0;
  },
};

const list: Command = {
  name: 'orgs list',
  summary: 'Lists every organization, oldest first, with whether it is suspended, whether it may have live keys, and its numbers of members and keys.',
  async run(ctx) {
    const { deps, core } = await ctx.open();
    ctx.out(json({ data: await core.listOrganizations(deps) }));
    return 0;
  },
};

const allowLive: Command = {
  name: 'orgs allow-live',
  args: ['orgId'],
  summary: 'Lets an organization created with --test have live keys, in the dashboard and the API.',
  async run(ctx, _values, [orgId]) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.allowLiveKeys(deps, orgId!)));
    return 0;
  },
};

const suspend: Command = {
  name: 'orgs suspend',
  args: ['orgId'],
  summary:
    'Suspends an organization: every API replica refuses its keys at once (403), and its messages still waiting are failed (ORGANIZATION_SUSPENDED) instead of sent. Its data stays; `orgs resume` undoes it.',
  async run(ctx, _values, [orgId]) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.setOrganizationSuspended(deps, orgId!, true)));
    return 0;
  },
};

const resume: Command = {
  name: 'orgs resume',
  args: ['orgId'],
  summary: 'Resumes a suspended organization: its keys work again at once. Messages failed while it was suspended stay failed.',
  async run(ctx, _values, [orgId]) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.setOrganizationSuspended(deps, orgId!, false)));
    return 0;
  },
};

export const orgs = [create, list, allowLive, suspend, resume];
