// No zod here: the template render threads import this alone (`@tidings/contracts/storable-text`), and loading
// every schema (zod) cost each new thread about 0.3 s of CPU.

/**
 * Why Postgres cannot store `value` as it is, or null. Text columns refuse NUL (U+0000); jsonb also refuses a lone
 * UTF-16 surrogate (which a text column would silently turn into U+FFFD), so both are bad input everywhere.
 * @example unstorableText('a\u0000b') // 'must not contain the NUL character (U+0000)'
 */
export function unstorableText(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  // in a u-mode pattern a surrogate pair is one code point, so \p{Cs} matches only a lone surrogate
  if (/\p{Cs}/u.test(value)) return 'must not contain a lone surrogate (U+D800 to U+DFFF); send well-formed Unicode';
  return null;
}
