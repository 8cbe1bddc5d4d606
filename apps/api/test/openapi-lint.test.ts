import { createConfig, lintFromString } from '@redocly/openapi-core';
import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

// Redocly's `recommended` ruleset, run offline through its library (openapi-typescript, which the SDK generates with, is built on
// it) on the document the API serves. It replaced Spectral's spectral:oas, whose tree was ~125 packages of the install.
describe('the served OpenAPI document under Redocly (recommended)', () => {
  it('has no errors and no warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const text = await (await t.app.request('/v1/openapi.json')).text();
    const problems = await lintFromString({ source: text, absoluteRef: '/v1/openapi.json', config });
    const findings = problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(findings.filter((f) => f.startsWith('error') || f.startsWith('warn'))).toEqual([]);
    // the ruleset is really applied: the same document without its info is an error
    const broken = JSON.stringify({ ...JSON.parse(text), info: undefined });
    const brokenProblems = await lintFromString({ source: broken, absoluteRef: '/broken.json', config });
    expect(brokenProblems.some((p) => p.severity === 'error')).toBe(true);
  }, 180_000); // a few seconds of CPU: on a loaded machine a minute of wall time was not always enough
});
