import { countSmsSegments } from './sms-segments.ts';

describe('countSmsSegments (known answers)', () => {
  it('counts plain GSM-7: 160 in one, then 153 per part', () => {
    expect(countSmsSegments('a'.repeat(160))).toEqual({ encoding: 'gsm7', segments: 1 });
    expect(countSmsSegments('a'.repeat(161))).toEqual({ encoding: 'gsm7', segments: 2 });
    expect(countSmsSegments('a'.repeat(306))).toEqual({ encoding: 'gsm7', segments: 2 });
    expect(countSmsSegments('a'.repeat(307))).toEqual({ encoding: 'gsm7', segments: 3 });
    expect(countSmsSegments('Hello @ £5, ¿Qué? Ü and à are GSM-7')).toEqual({ encoding: 'gsm7', segments: 1 });
  });

  it('counts extension characters as two septets and never splits one', () => {
    expect(countSmsSegments('€'.repeat(80))).toEqual({ encoding: 'gsm7', segments: 1 }); // 160 septets
    expect(countSmsSegments('€'.repeat(81))).toEqual({ encoding: 'gsm7', segments: 2 }); // 162
    expect(countSmsSegments('a'.repeat(159) + '{')).toEqual({ encoding: 'gsm7', segments: 2 }); // 161 septets
    // 152 septets then an escaped pair: the pair opens part two instead of straddling (a naive 306/153 says 2)
    expect(countSmsSegments('a'.repeat(152) + '[' + 'a'.repeat(151))).toEqual({ encoding: 'gsm7', segments: 2 });
    expect(countSmsSegments('a'.repeat(152) + '[' + 'a'.repeat(152))).toEqual({ encoding: 'gsm7', segments: 3 });
  });

  it('falls back to UCS-2 for anything outside GSM-7: 70 in one, then 67 per part', () => {
    expect(countSmsSegments('ç'.repeat(70))).toEqual({ encoding: 'ucs2', segments: 1 }); // ç (small c cedilla) is not GSM-7
    expect(countSmsSegments('Привет'.padEnd(71, 'x'))).toEqual({ encoding: 'ucs2', segments: 2 });
    expect(countSmsSegments('中'.repeat(134))).toEqual({ encoding: 'ucs2', segments: 2 });
    expect(countSmsSegments('中'.repeat(135))).toEqual({ encoding: 'ucs2', segments: 3 });
  });

  it('counts an emoji as two UTF-16 code units and keeps its pair together', () => {
    expect(countSmsSegments('😀'.repeat(35))).toEqual({ encoding: 'ucs2', segments: 1 }); // 70 units
    expect(countSmsSegments('😀'.repeat(36))).toEqual({ encoding: 'ucs2', segments: 2 }); // 72 units
    // 66 units then an emoji: 68 units would not fit 67, so the pair opens part two
    expect(countSmsSegments('x'.repeat(66) + '😀' + 'x'.repeat(65))).toEqual({ encoding: 'ucs2', segments: 2 });
    expect(countSmsSegments('x'.repeat(66) + '😀' + 'x'.repeat(66))).toEqual({ encoding: 'ucs2', segments: 3 });
    expect(countSmsSegments('ok 👍')).toEqual({ encoding: 'ucs2', segments: 1 });
  });
});
