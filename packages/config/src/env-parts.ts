// The parts the environment's schema is built of: the checks several settings share.
import { z } from 'zod';

export function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false; // not a valid pattern: the refinement reports it
  }
}

export const booleanFromString = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
export const port = z.coerce.number().int().min(0).max(65535);
