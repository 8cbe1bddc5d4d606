// GSM 03.38 default alphabet (one septet each) and its extension table (escape + char: two septets each).
const GSM7_BASIC = new Set(
  Array.from('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'),
);
const GSM7_EXTENSION = new Set(Array.from('\f^{}\\[~]|€'));

export type SmsEncoding = 'gsm7' | 'ucs2';

/**
 * Packs units into segments of `single` when everything fits in one, else `multi` each (the rest is the
 * concatenation header). A character never straddles two segments: an escaped GSM-7 pair or a UTF-16 surrogate
 * pair that does not fit starts the next segment, as handsets and carriers do.
 */
function pack(sizes: number[], single: number, multi: number): number {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > multi) {
      segments += 1;
      used = 0;
    }
    used += size;
  }
  return segments;
}

/**
 * The encoding an SMS body needs and how many segments it is billed as: GSM-7 (with the extension table) 160 per
 * single message and 153 per part, else UCS-2 70 and 67, counting UTF-16 code units (an emoji outside the BMP
 * is two).
 * @example countSmsSegments('hello') // { encoding: 'gsm7', segments: 1 }
 * @example countSmsSegments('€'.repeat(81)) // { encoding: 'gsm7', segments: 2 } (162 septets)
 */
export function countSmsSegments(body: string): { encoding: SmsEncoding; segments: number } {
  const chars = Array.from(body); // code points
  if (chars.every((c) => GSM7_BASIC.has(c) || GSM7_EXTENSION.has(c))) {
    return { encoding: 'gsm7', segments: pack(chars.map((c) => (GSM7_EXTENSION.has(c) ? 2 : 1)), 160, 153) };
  }
  return { encoding: 'ucs2', segments: pack(chars.map((c) => c.length), 70, 67) };
}
