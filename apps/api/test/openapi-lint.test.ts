import { Document, Spectral } from '@stoplight/spectral-core';
import * as Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

const SEVERITY = ['error', 'warn', 'info', 'hint'];

// Spectral's own OpenAPI ruleset (spectral:oas, recommended), run offline through its library on the document the
// API serves: the rules the command-line tool runs, without its bundler and formatters.
describe('the served OpenAPI document under Spectral (spectral:oas)', () => {
  it('has no errors and no warnings', async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const text = await (await t.app.request('/v1/openapi.json')).text();
    const results = await spectral.run(new Document(text, Parsers.Json, '/v1/openapi.json'));
    const findings = results.map((f) => `${SEVERITY[f.severity]} ${f.code} at ${f.path.join('.')}: ${f.message}`);
    expect(findings.filter((f) => f.startsWith('error') || f.startsWith('warn'))).toEqual([]);
    // the ruleset is really applied: the same document without its info is an error
    const broken = { ...JSON.parse(text), info: undefined };
    const brokenResults = await spectral.run(new Document(JSON.stringify(broken), Parsers.Json, '/broken.json'));
    expect(brokenResults.some((f) => SEVERITY[f.severity] === 'error')).toBe(true);
  }, 180_000); // a few seconds of CPU: on a loaded machine a minute of wall time was not always enough
});
