// GSM 03.38: the 7-bit default alphabet and its extension table (characters sent as ESC + char, two septets).
const GSM_BASIC = new Set(
  Array.from('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' + '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'),
);
const GSM_EXTENSION = new Set(Array.from('\f^{}\\[~]|€'));

/** Units per segment: a single-part message, and each part of a concatenated one (the rest is the UDH header). */
const LIMITS = { 'GSM-7': { single: 160, multi: 153 }, 'UCS-2': { single: 70, multi: 67 } } as const;

export type SmsEncoding = keyof typeof LIMITS;
export type SmsSegmentCount = { encoding: SmsEncoding; segments: number; characters: number };

/**
 * How many SMS segments `text` takes: GSM-7 when every character is in the GSM alphabet (extension characters take
 * two septets), UCS-2 otherwise (characters outside the BMP, such as emoji, take two code units). A character is
 * never split across segments, as handsets do. `characters` counts Unicode code points; an empty text is 0 segments.
 * @example countSmsSegments('Hello €') // { encoding: 'GSM-7', segments: 1, characters: 7 }
 */
export function countSmsSegments(text: string): SmsSegmentCount {
  const characters = Array.from(text);
  const isGsm = characters.every((c) => GSM_BASIC.has(c) || GSM_EXTENSION.has(c));
  const encoding: SmsEncoding = isGsm ? 'GSM-7' : 'UCS-2';
  const unitsOf = isGsm ? (c: string) => (GSM_EXTENSION.has(c) ? 2 : 1) : (c: string) => c.length;
  const units = characters.map(unitsOf);
  const total = units.reduce((sum, n) => sum + n, 0);
  const limit = LIMITS[encoding];
  if (total === 0) return { encoding, segments: 0, characters: 0 };
  if (total <= limit.single) return { encoding, segments: 1, characters: characters.length };

  let segments = 1;
  let used = 0;
  for (const n of units) {
    if (used + n > limit.multi) {
      segments += 1;
      used = 0;
    }
    used += n;
  }
  return { encoding, segments, characters: characters.length };
}
