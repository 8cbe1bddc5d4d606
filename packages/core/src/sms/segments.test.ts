import { countSmsSegments } from './segments.ts';

const repeat = (s: string, n: number) => s.repeat(n);

describe('countSmsSegments', () => {
  it('GSM-7: 160 characters fit one segment, 161 take two, then 153 per segment', () => {
    expect(countSmsSegments(repeat('a', 160))).toEqual({ encoding: 'GSM-7', segments: 1, characters: 160 });
    expect(countSmsSegments(repeat('a', 161))).toEqual({ encoding: 'GSM-7', segments: 2, characters: 161 });
    expect(countSmsSegments(repeat('a', 306)).segments).toBe(2);
    expect(countSmsSegments(repeat('a', 307)).segments).toBe(3);
  });

  it('GSM-7 extension characters count double and are never split across segments', () => {
    expect(countSmsSegments(repeat('€', 80))).toEqual({ encoding: 'GSM-7', segments: 1, characters: 80 });
    expect(countSmsSegments(repeat('€', 81)).segments).toBe(2);
    expect(countSmsSegments(`${repeat('a', 159)}{`).segments).toBe(2); // 161 septets
    // 306 septets would be 2 segments by division, but the € cannot straddle the boundary after 152 septets
    expect(countSmsSegments(`${repeat('a', 152)}€${repeat('a', 152)}`).segments).toBe(3);
    for (const c of ['^', '{', '}', '\\', '[', '~', ']', '|', '€', '\f']) {
      expect(countSmsSegments(repeat(c, 81)).segments).toBe(2);
    }
  });

  it('the GSM basic alphabet includes accented letters it really has', () => {
    expect(countSmsSegments('Ça va? ñ Ü é à ß Δ £ ¥ § ¿¡').encoding).toBe('GSM-7');
  });

  it('a character outside GSM-7 makes the whole text UCS-2: 70, then 67 per segment', () => {
    expect(countSmsSegments('ça')).toEqual({ encoding: 'UCS-2', segments: 1, characters: 2 }); // lower-case ç is not GSM
    expect(countSmsSegments('`').encoding).toBe('UCS-2');
    expect(countSmsSegments(repeat('я', 70))).toEqual({ encoding: 'UCS-2', segments: 1, characters: 70 });
    expect(countSmsSegments(repeat('я', 71)).segments).toBe(2);
    expect(countSmsSegments(repeat('я', 134)).segments).toBe(2);
    expect(countSmsSegments(repeat('я', 135)).segments).toBe(3);
    expect(countSmsSegments(`${repeat('a', 159)}я`)).toEqual({ encoding: 'UCS-2', segments: 3, characters: 160 });
  });

  it('emoji are surrogate pairs: two UCS-2 units, one character, never split', () => {
    expect(countSmsSegments(repeat('😀', 35))).toEqual({ encoding: 'UCS-2', segments: 1, characters: 35 });
    expect(countSmsSegments(repeat('😀', 36))).toEqual({ encoding: 'UCS-2', segments: 2, characters: 36 });
    // 134 units would be 2 segments by division; the emoji after 66 units moves whole to the next segment
    expect(countSmsSegments(`${repeat('a', 66)}😀${repeat('a', 66)}`).segments).toBe(3);
  });

  it('an empty text is no segments', () => {
    expect(countSmsSegments('')).toEqual({ encoding: 'GSM-7', segments: 0, characters: 0 });
  });
});
