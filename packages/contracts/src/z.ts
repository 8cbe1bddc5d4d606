import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// `.openapi()` on every schema, so the OpenAPI document is generated from the same schemas the API validates with.
extendZodWithOpenApi(z);

export { z };
