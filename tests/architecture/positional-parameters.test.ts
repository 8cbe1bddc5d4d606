import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// A request's context (dependencies, organization, mode, trace) travels as one value (core's RequestContext, or an
// OrgContext where the mode may be absent), and related trailing arguments as one named object, not as a row of
// positional parameters.
const coreSrc = path.resolve(__dirname, '../../packages/core/src');
const MOST = 4;

/** How many parameters each exported function of `text` declares, by name. */
function parameterCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/^export (?:async )?function (\w+)(?:<[^(]*>)?\(/gm)) {
    let depth = 1;
    let commas = 0;
    let index = match.index + match[0].length;
    const start = index;
    for (; depth > 0 && index < text.length; index += 1) {
      const char = text[index]!;
      if ('([{<'.includes(char)) depth += 1;
      else if (')]}'.includes(char) || (char === '>' && text[index - 1] !== '=')) depth -= 1;
      else if (char === ',' && depth === 1) commas += 1;
    }
    const inside = text.slice(start, index - 1).trim();
    counts.set(match[1]!, inside === '' ? 0 : commas + 1 - (inside.endsWith(',') ? 1 : 0));
  }
  return counts;
}

const over = (readdirSync(coreSrc, { recursive: true }) as string[])
  .filter((file) => /\.ts$/.test(file) && !/\.test\.ts$/.test(file) && !file.split(path.sep).includes('generated'))
  .flatMap((file) => [...parameterCounts(readFileSync(path.join(coreSrc, file), 'utf8'))].filter(([, count]) => count > MOST).map(([name]) => name));

describe('positional parameters of core', () => {
  it(`no exported core function takes more than ${MOST} positional parameters`, () => {
    expect(over).toEqual([]);
  });

  it('the count sees what it counts', () => {
    const counts = parameterCounts(
      'export async function a(deps: Pick<Deps, "db" | "now">, orgId: string, x: { a: number; b: string }, f = (u: number, v: number) => u, g?: Map<string, number>,\n): Promise<void> {}\nexport function b() {}',
    );
    expect(counts).toEqual(
      new Map([
        ['a', 5],
        ['b', 0],
      ]),
    );
  });
});
