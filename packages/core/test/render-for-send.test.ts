import { createTestDeps, makeOrganization } from '@tidings/testing';
import { AppError, createTemplate, deleteTemplate, renderTemplateForSend, renderTemplatesForSend, updateTemplate } from '../src/index.ts';

const deps = createTestDeps();
afterAll(() => deps.close());

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return { code: (error as AppError).code, message: (error as AppError).message };
}

describe('renderTemplateForSend', () => {
  it('renders the latest version by default and a named older version on request, with the version used', async () => {
    const { orgId } = await makeOrganization(deps);
    const tpl = await createTemplate(deps, orgId, { name: 'Welcome', channelType: 'email', subject: 'Hi {{ name }}', html: '<p>{{ name }}</p>', text: 'Hello {{ name }}' });
    await updateTemplate(deps, orgId, tpl.id, { html: '<h1>{{ name }}</h1>' });

    const latest = await renderTemplateForSend(deps, orgId, { templateId: tpl.id, variables: { name: 'A&B' }, channelType: 'email' });
    expect(latest).toEqual({ subject: 'Hi A&B', html: '<h1>A&amp;B</h1>', text: 'Hello A&B', templateId: tpl.id, templateVersion: 2, replyTo: [] });
    const first = await renderTemplateForSend(deps, orgId, { templateId: tpl.id, templateVersion: 1, variables: { name: 'A&B' }, channelType: 'email' });
    expect(first).toEqual({ subject: 'Hi A&B', html: '<p>A&amp;B</p>', text: 'Hello A&B', templateId: tpl.id, templateVersion: 1, replyTo: [] });
  });

  it('an sms template gives only a body, unescaped', async () => {
    const { orgId } = await makeOrganization(deps);
    const tpl = await createTemplate(deps, orgId, { name: 'OTP', channelType: 'sms', body: 'Code <{{ code }}>' });
    expect(await renderTemplateForSend(deps, orgId, { templateId: tpl.id, variables: { code: '1&2' }, channelType: 'sms' })).toEqual({
      body: 'Code <1&2>',
      templateId: tpl.id,
      templateVersion: 1,
      replyTo: [],
    });
  });

  it('is BAD_REQUEST naming the field for a missing variable, a missing, deleted or foreign template, a missing version, or the other channel', async () => {
    const { orgId } = await makeOrganization(deps);
    const other = await makeOrganization(deps);
    const tpl = await createTemplate(deps, orgId, { name: 'OTP', channelType: 'sms', body: 'Code {{ code }} for {{ user.name }}' });
    const send = (input: Partial<Parameters<typeof renderTemplateForSend>[2]>, org = orgId) =>
      refusal(renderTemplateForSend(deps, org, { templateId: tpl.id, channelType: 'sms', variables: { code: '1', user: { name: 'Ada' } }, ...input }));

    expect(await send({ variables: { user: { name: 'Ada' } } })).toEqual({ code: 'BAD_REQUEST', message: "variables.code: missing; the template's body uses it" });
    expect(await send({ variables: { code: '1', user: {} } })).toEqual({ code: 'BAD_REQUEST', message: "variables.user.name: missing; the template's body uses it" });
    expect(await send({ channelType: 'email' })).toEqual({ code: 'BAD_REQUEST', message: 'templateId: the template is for sms, not email' });
    expect(await send({ templateVersion: 4 })).toEqual({ code: 'BAD_REQUEST', message: 'templateVersion: the template has no version 4' });
    expect(await send({ templateId: 'tpl_missing' })).toEqual({ code: 'NOT_FOUND', message: 'templateId: Template not found' });
    expect(await send({}, other.orgId)).toEqual({ code: 'NOT_FOUND', message: 'templateId: Template not found' });

    await deleteTemplate(deps, orgId, tpl.id);
    expect(await send({})).toEqual({ code: 'BAD_REQUEST', message: 'templateId: the template is deleted' });
  });
});

describe('renderTemplatesForSend', () => {
  it('renders a batch with two queries whatever its size, each input its own result or error', async () => {
    const { orgId } = await makeOrganization(deps);
    const sms = await createTemplate(deps, orgId, { name: 'OTP', channelType: 'sms', body: 'Code {{ code }}' });
    await updateTemplate(deps, orgId, sms.id, { body: 'v2 {{ code }}' });
    const email = await createTemplate(deps, orgId, { name: 'Hi', channelType: 'email', subject: 'Hi {{ n }}', text: 'x' });
    const queries: string[] = [];
    const counting = {
      db: deps.db.$extends({
        query: {
          $allOperations: async ({ model, operation, args, query }) => {
            queries.push(`${model}.${operation}`);
            return query(args);
          },
        },
      }) as unknown as typeof deps.db,
      renderer: deps.renderer,
    };

    const inputs = [
      ...Array.from({ length: 50 }, (_, i) => ({ templateId: sms.id, variables: { code: String(i) }, channelType: 'sms' as const })),
      { templateId: sms.id, templateVersion: 1, variables: { code: 'old' }, channelType: 'sms' as const },
      { templateId: email.id, variables: { n: 'Ada' }, channelType: 'email' as const },
      { templateId: email.id, variables: {}, channelType: 'email' as const },
      { templateId: 'tpl_missing', channelType: 'sms' as const },
      { templateId: sms.id, templateVersion: 3_000_000_000, variables: { code: '1' }, channelType: 'sms' as const },
    ];
    const results = await renderTemplatesForSend(counting, orgId, inputs);
    expect(queries).toEqual(['Template.findMany', 'TemplateVersion.findMany']);
    expect(results[0]).toEqual({ body: 'v2 0', templateId: sms.id, templateVersion: 2, replyTo: [] });
    expect(results[49]).toEqual({ body: 'v2 49', templateId: sms.id, templateVersion: 2, replyTo: [] });
    expect(results[50]).toEqual({ body: 'Code old', templateId: sms.id, templateVersion: 1, replyTo: [] });
    expect(results[51]).toEqual({ subject: 'Hi Ada', text: 'x', templateId: email.id, templateVersion: 1, replyTo: [] });
    expect(results.slice(52).map((r) => (r as AppError).message)).toEqual([
      "variables.n: missing; the template's subject uses it",
      'templateId: Template not found',
      'templateVersion: the template has no version 3000000000',
    ]);
  });
});
