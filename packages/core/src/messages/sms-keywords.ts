/** What an inbound SMS asks for when its whole trimmed body is a keyword. */
export type SmsKeyword = 'stop' | 'start' | 'help';

const KEYWORDS: Record<string, SmsKeyword> = {
  STOP: 'stop',
  STOPALL: 'stop',
  UNSUBSCRIBE: 'stop',
  CANCEL: 'stop',
  END: 'stop',
  QUIT: 'stop',
  START: 'start',
  UNSTOP: 'start',
  YES: 'start',
  HELP: 'help',
  INFO: 'help',
};

/**
 * The keyword an inbound SMS is, case-insensitive, on the whole trimmed body (`"stop please"` is no keyword).
 * @example smsKeywordOf('  Stop ') // 'stop'
 */
export function smsKeywordOf(body: string | null | undefined): SmsKeyword | null {
  return KEYWORDS[(body ?? '').trim().toUpperCase()] ?? null;
}
