import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// `.openapi()` on every schema, so the OpenAPI document is generated from the same schemas the API validates with.
extendZodWithOpenApi(z);

// A field that is simply absent says so ("to: required") instead of zod's "expected string, received undefined".
z.config({
  customError: (issue) => (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value') ? 'required' : undefined),
});

export { z };
