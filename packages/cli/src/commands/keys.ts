import { json, type Command } from '../command.ts';

const org = { type: 'string', required: true, placeholder: 'orgId', description: 'the organization' } as const;
const key = { type: 'string', required: true, placeholder: 'keyId', description: 'the key (key_...), from `keys list`' } as const;

const list: Command = {
  name: 'keys list',
  summary: 'Lists the API keys of an organization that are not deleted, newest first: name, prefix, permission, mode, state. Never the secrets.',
  options: { org },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    const keys = [];
    let cursor: string | undefined;
    do {
      const page = await core.listApiKeys(deps, String(values.org), 'live', { limit: 100, offset: 0, cursor });
      keys.push(...page.data);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    ctx.out(json({ data: keys }));
    return 0;
  },
};

const create: Command = {
  name: 'keys create',
  summary:
    'Creates an API key for an organization; the key is printed once (only its hash is stored). The mode defaults to live when the organization may have live keys, else test.',
  options: {
    org,
    name: { type: 'string', required: true, description: 'what the key is for, e.g. "CI deploys"' },
    mode: { type: 'string', choices: ['live', 'test'], description: 'test keys always use the sandbox' },
    permission: { type: 'string', choices: ['full', 'sending'], description: 'sending keys may only send and read messages (default full)' },
  },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    const input = {
      name: String(values.name),
      permission: (values.permission ?? 'full') as 'full' | 'sending',
      mode: values.mode as 'live' | 'test' | undefined,
    };
    ctx.out(json(await core.createApiKey(deps, String(values.org), 'live', input)));
    return 0;
  },
};

const rotate: Command = {
  name: 'keys rotate',
  summary: 'Gives a key a new secret, printed once. The old secret keeps working for 24 hours, so deployments can change over; --immediately stops it at once (a leaked key).',
  options: { org, key, immediately: { type: 'boolean', description: 'the old secret stops now, on every API replica' } },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.rotateApiKey({ deps, orgId: String(values.org), mode: 'live' }, String(values.key), { immediately: values.immediately === true })));
    return 0;
  },
};

const setEnabled = (enabled: boolean): Command => ({
  name: enabled ? 'keys enable' : 'keys disable',
  summary: enabled ? 'Enables a disabled key again.' : 'Disables a key: every API replica refuses it at once (401) until `keys enable`.',
  options: { org, key },
  async run(ctx, values) {
    const { deps, core } = await ctx.open();
    ctx.out(json(await core.setApiKeyEnabled({ deps, orgId: String(values.org), mode: 'live' }, String(values.key), enabled)));
    return 0;
  },
});

export const keys = [list, create, rotate, setEnabled(false), setEnabled(true)];
