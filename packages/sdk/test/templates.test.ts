import { TidingsError } from '../src/index.ts';
import { startApi } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.templates against the running API', () => {
  it('creates a template, updates it to version 2 and previews both versions', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const created = await tidings.templates.create({ name: 'welcome', channelType: 'email', subject: 'Hi {{firstName}}', html: '<p>Hello {{firstName}}</p>' });
    expect(created).toMatchObject({ name: 'welcome', version: 1, variables: ['firstName'] });
    expect(created.id).toMatch(/^tpl_/);

    const updated = await tidings.templates.update(created.id, { subject: 'Welcome, {{firstName}}' });
    expect(updated).toMatchObject({ id: created.id, version: 2, subject: 'Welcome, {{firstName}}' });
    expect(await tidings.templates.get(created.id, { version: 1 })).toMatchObject({ version: 1, subject: 'Hi {{firstName}}' });

    const preview = await tidings.templates.preview(created.id, { variables: { firstName: '<Ada>' } });
    expect(preview).toMatchObject({ templateId: created.id, version: 2, subject: 'Welcome, <Ada>', html: '<p>Hello &lt;Ada&gt;</p>' });
    expect(await tidings.templates.preview(created.id, { variables: { firstName: 'Ada' }, version: 1 })).toMatchObject({ version: 1, subject: 'Hi Ada' });
  });

  it('typed error: 404 for an unknown template id', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const error = await tidings.templates.preview('tpl_doesnotexist').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
