import type { JsonValue } from '@tidings/contracts';

/**
 * An attribute value typed into a form or a CSV cell: JSON when it reads as JSON (`12`, `true`, `["a"]`, `"12"`),
 * else the text itself. So `pro` is a string, `12` a number segments can compare with gt, and `02134` (not JSON)
 * stays a string; an empty value is no value.
 * @example attributeFromText('12') // 12; attributeFromText('pro') // 'pro'; attributeFromText('') // undefined
 */
export function attributeFromText(text: string): JsonValue | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    return trimmed;
  }
}

/**
 * How a form shows a stored value so that {@link attributeFromText} reads it back the same: a string as itself
 * unless it would read as something else (then quoted), anything else as JSON.
 * @example attributeToText('pro') // 'pro'; attributeToText('12') // '"12"'; attributeToText(12) // '12'
 */
export function attributeToText(value: JsonValue): string {
  if (typeof value === 'string' && attributeFromText(value) === value) return value;
  return JSON.stringify(value);
}
