import { createHash, randomUUID } from 'node:crypto';

/** US toll-free area codes. */
export const TOLL_FREE = ['800', '833', '844', '855', '866', '877', '888'];

// Each test file (jest loads modules per file) gets other numbers: files running at once share one database, where a
// number bought by one would be missing from the other's search.
const SALT = randomUUID();

/** US numbers only, enough for the SDK's search and the filters we send: area code, `contains`, type. */
export function inventory(filter: { ndc?: string; contains?: string; type?: string; limit: number }): string[] {
  const ndc = filter.ndc ?? (filter.type === 'toll_free' ? '888' : '415');
  const out: string[] = [];
  for (let i = 0; out.length < filter.limit && i < filter.limit * 50; i += 1) {
    const digits = BigInt(`0x${createHash('sha256').update(`${SALT}:${ndc}:${filter.contains}:${i}`).digest('hex').slice(0, 12)}`)
      .toString()
      .padStart(7, '0');
    let line = `${2 + (Number(digits[0]) % 8)}${digits.slice(1, 7)}`;
    if (filter.contains && !`${ndc}${line}`.includes(filter.contains)) {
      if (filter.contains.length > 7) break;
      const at = Math.max(1, i % (8 - filter.contains.length));
      line = (line.slice(0, at) + filter.contains + line.slice(at)).slice(0, 7);
      if (!`${ndc}${line}`.includes(filter.contains)) continue;
    }
    const number = `+1${ndc}${line}`;
    if (!out.includes(number)) out.push(number);
  }
  return out;
}
