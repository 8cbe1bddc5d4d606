/**
 * The value of one sample in a Prometheus text exposition: the line named `name` whose labels include `labels`
 * (in any order), or undefined when there is none. Throws when several lines match, so a test never reads the
 * wrong one.
 * @example sampleValue(await (await fetch(`${url}/metrics`)).text(), 'tidings_provider_calls_total', { provider: 'resend', outcome: 'sent' }) // 1
 */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matches = text
    .split('\n')
    .map((line) => /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[1] === name)
    .filter((m) => {
      const present = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]));
      return Object.entries(labels).every(([key, value]) => present.get(key) === value);
    });
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches.length ? Number(matches[0][3]) : undefined;
}
