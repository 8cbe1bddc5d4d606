import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
};

describe('OpenAPI document: contacts, templates and segments', () => {
  it('carries all 19 operations with their request and response schemas', async () => {
    const doc = (await t.anonymous.get('/v1/openapi.json')).body;
    const byId = new Map<string, Operation & { method: string; path: string }>();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(methods)) byId.set(op.operationId, { ...op, method, path });
    }
    const expected: [string, string, string, string | null, string, string | null][] = [
      ['contact.create', 'post', '/contacts', 'CreateContactBody', '201', 'Contact'],
      ['contact.list', 'get', '/contacts', null, '200', 'ContactList'],
      ['contact.get', 'get', '/contacts/{id}', null, '200', 'Contact'],
      ['contact.update', 'patch', '/contacts/{id}', 'UpdateContactBody', '200', 'Contact'],
      ['contact.delete', 'delete', '/contacts/{id}', null, '204', null],
      ['contact.bulkCreate', 'post', '/contacts/bulk', 'BulkCreateContactsBody', '200', 'BulkCreateContactsResult'],
      ['template.create', 'post', '/templates', 'CreateTemplateBody', '201', 'Template'],
      ['template.list', 'get', '/templates', null, '200', 'TemplateList'],
      ['template.get', 'get', '/templates/{id}', null, '200', 'Template'],
      ['template.update', 'patch', '/templates/{id}', 'UpdateTemplateBody', '200', 'Template'],
      ['template.delete', 'delete', '/templates/{id}', null, '204', null],
      ['template.listVersions', 'get', '/templates/{id}/versions', null, '200', 'TemplateVersionList'],
      ['template.preview', 'post', '/templates/{id}/preview', 'PreviewTemplateBody', '200', 'TemplatePreview'],
      ['segment.create', 'post', '/segments', 'CreateSegmentBody', '201', 'SegmentWithCount'],
      ['segment.list', 'get', '/segments', null, '200', 'SegmentList'],
      ['segment.get', 'get', '/segments/{id}', null, '200', 'SegmentWithCount'],
      ['segment.update', 'patch', '/segments/{id}', 'UpdateSegmentBody', '200', 'SegmentWithCount'],
      ['segment.delete', 'delete', '/segments/{id}', null, '204', null],
      ['segment.listContacts', 'get', '/segments/{id}/contacts', null, '200', 'SegmentContactList'],
    ];
    for (const [operationId, method, path, requestSchema, status, responseSchema] of expected) {
      const op = byId.get(operationId);
      expect({ operationId, method: op?.method, path: op?.path }).toEqual({ operationId, method, path });
      if (requestSchema) expect(op!.requestBody!.content['application/json']!.schema.$ref).toBe(`#/components/schemas/${requestSchema}`);
      if (responseSchema) expect(op!.responses[status]!.content!['application/json']!.schema.$ref).toBe(`#/components/schemas/${responseSchema}`);
      else expect(op!.responses[status]).toBeDefined();
      expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['400', '401', '500', ...(path.includes('{id}') ? ['404'] : [])]));
    }

    const schemas = doc.components.schemas;
    expect(schemas.Contact.required).toEqual(expect.arrayContaining(['id', 'email', 'phone', 'attributes', 'emailSubscribed', 'smsSubscribed', 'createdAt']));
    expect(schemas.Template.required).toEqual(expect.arrayContaining(['id', 'name', 'channelType', 'variables', 'version', 'deletedAt']));
    expect(schemas.BulkCreateContactsBody.properties.contacts).toMatchObject({ maxItems: 1000, items: { $ref: '#/components/schemas/CreateContactBody' } });
    // The recursive criteria: groups of conditions or groups, both defined in the document.
    expect(schemas.SegmentCriteria.properties.all.items.oneOf).toEqual([{ $ref: '#/components/schemas/SegmentCriteria' }, { $ref: '#/components/schemas/SegmentCondition' }]);
    expect(schemas.SegmentCondition.properties.op.enum).toEqual(['eq', 'neq', 'contains', 'startsWith', 'gt', 'gte', 'lt', 'lte', 'exists', 'notExists', 'in']);
    const listParams = (byId.get('contact.list') as unknown as { parameters: { name: string }[] }).parameters.map((p) => p.name);
    expect(listParams).toEqual(expect.arrayContaining(['email', 'phone', 'q', 'segmentId', 'subscribed', 'createdAfter', 'createdBefore', 'limit', 'cursor']));
  });
});
