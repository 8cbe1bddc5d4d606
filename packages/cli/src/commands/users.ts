import { randomBytes } from 'node:crypto';
import { json, type Command } from '../command.ts';

/** A password for someone who will change it, printed once so it never has to sit in shell history. */
const generatedPassword = () => randomBytes(15).toString('base64url');

const create: Command = {
  name: 'users create',
  summary:
    'Adds a person to an organization, with a dashboard account when the email has none. Without --password one is generated and printed once; without --role the organization’s first person is its owner, later ones members.',
  options: {
    org: { type: 'string', required: true, placeholder: 'orgId', description: 'the organization' },
    email: { type: 'string', required: true, description: 'the person’s email, their sign-in' },
    password: { type: 'string', description: 'at least 10 characters; generated when absent' },
    role: { type: 'string', choices: ['owner', 'operator', 'member'], description: 'owners and operators manage, members read' },
  },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    const generated = values.password === undefined ? generatedPassword() : undefined;
    const role = values.role as 'owner' | 'operator' | 'member' | undefined;
    const result = await core.createUser(deps, { orgId: String(values.org), email: String(values.email), password: String(values.password ?? generated), role });
    ctx.out(json({ ...result, ...(generated && result.isNewUser ? { password: generated } : {}) }));
    return 0;
  },
};

const list: Command = {
  name: 'users list',
  summary: 'Lists the people with a dashboard account, oldest first, each with their organizations and roles; --org: only that organization’s.',
  options: { org: { type: 'string', placeholder: 'orgId', description: 'only the members of this organization' } },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    ctx.out(json({ data: await core.listUsers(deps, { orgId: values.org as string | undefined }) }));
    return 0;
  },
};

const resetPassword: Command = {
  name: 'users reset-password',
  summary:
    'Sets a new password for a person (generated and printed once, unless --password gives one) and signs them out of every session. Tell them the password over a channel you trust; they sign in with it.',
  options: {
    email: { type: 'string', required: true, description: 'the person’s email' },
    password: { type: 'string', description: 'at least 10 characters; generated when absent' },
  },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    const generated = values.password === undefined ? generatedPassword() : undefined;
    const result = await core.resetPassword(deps, String(values.email), String(values.password ?? generated));
    ctx.out(json({ ...result, ...(generated ? { password: generated } : {}) }));
    return 0;
  },
};

const resetTwoFactor: Command = {
  name: 'users reset-2fa',
  summary:
    'Turns off a person’s two-factor sign-in (their authenticator secret and recovery codes are deleted) and signs them out of every session: for a lost phone. They enrol again from Settings > Account, or at their next sign-in when an organization of theirs requires it.',
  options: { email: { type: 'string', required: true, description: 'the person’s email' } },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.resetTwoFactorByEmail(deps, String(values.email))));
    return 0;
  },
};

/** Install operators see every organization's queued jobs (Bull Board): granted here only, never by a role. */
const installOperator = (grant: boolean): Command => ({
  name: grant ? 'users grant-operator' : 'users revoke-operator',
  summary: grant
    ? 'Makes a person an install operator: Bull Board (the dashboard’s /admin/queues) with every organization’s jobs.'
    : 'Takes Bull Board away from a person again; effective at their next request.',
  options: { email: { type: 'string', required: true, description: 'the person’s email' } },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.setInstallOperator(deps, String(values.email), grant)));
    return 0;
  },
});

export const users = [create, list, resetPassword, resetTwoFactor, installOperator(true), installOperator(false)];
