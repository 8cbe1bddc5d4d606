import { randomInt } from 'node:crypto';
import type { AvailableNumber, AvailableNumberQuery, NumberProvider, NumberType } from './number-provider.ts';
import { ProviderError } from './provider-error.ts';

type NumberingPlan = {
  callingCode: string;
  /** Digits after the calling code. */
  nationalLength: number;
  /** North American plan: the digit after the area code is 2-9. */
  isNanp?: boolean;
  prefixes: Record<NumberType, string[]>;
  regions?: Record<string, [string, string]>;
  monthlyCost: string;
  currency: string;
};

/** A few numbering plans, enough for searches to look like a real inventory's. */
const PLANS: Record<string, NumberingPlan> = {
  US: {
    callingCode: '1',
    nationalLength: 10,
    isNanp: true,
    prefixes: { local: ['212', '312', '415', '512', '617', '720', '206', '305'], mobile: ['332', '628', '737'], tollFree: ['800', '833', '844', '855', '866', '877', '888'] },
    regions: {
      '212': ['NY', 'New York'],
      '312': ['IL', 'Chicago'],
      '415': ['CA', 'San Francisco'],
      '512': ['TX', 'Austin'],
      '617': ['MA', 'Boston'],
      '720': ['CO', 'Denver'],
      '206': ['WA', 'Seattle'],
      '305': ['FL', 'Miami'],
      '332': ['NY', 'New York'],
      '628': ['CA', 'San Francisco'],
      '737': ['TX', 'Austin'],
    },
    monthlyCost: '1.00',
    currency: 'USD',
  },
  CA: {
    callingCode: '1',
    nationalLength: 10,
    isNanp: true,
    prefixes: { local: ['416', '604', '514', '403', '613'], mobile: ['437', '778'], tollFree: ['800', '833', '844', '855', '866', '877', '888'] },
    regions: {
      '416': ['ON', 'Toronto'],
      '604': ['BC', 'Vancouver'],
      '514': ['QC', 'Montreal'],
      '403': ['AB', 'Calgary'],
      '613': ['ON', 'Ottawa'],
      '437': ['ON', 'Toronto'],
      '778': ['BC', 'Vancouver'],
    },
    monthlyCost: '1.00',
    currency: 'USD',
  },
  GB: {
    callingCode: '44',
    nationalLength: 10,
    prefixes: { local: ['20', '121', '161', '131'], mobile: ['74', '75', '77', '78', '79'], tollFree: ['800', '808'] },
    monthlyCost: '1.50',
    currency: 'USD',
  },
  DE: {
    callingCode: '49',
    nationalLength: 10,
    prefixes: { local: ['30', '40', '69', '89'], mobile: ['151', '160', '170', '176'], tollFree: ['800'] },
    monthlyCost: '2.00',
    currency: 'USD',
  },
  FR: { callingCode: '33', nationalLength: 9, prefixes: { local: ['1', '4', '5'], mobile: ['6', '7'], tollFree: ['80'] }, monthlyCost: '2.00', currency: 'USD' },
  AU: { callingCode: '61', nationalLength: 9, prefixes: { local: ['2', '3', '7', '8'], mobile: ['4'], tollFree: ['1800'] }, monthlyCost: '3.00', currency: 'USD' },
  NL: { callingCode: '31', nationalLength: 9, prefixes: { local: ['20', '10', '70'], mobile: ['6'], tollFree: ['800'] }, monthlyCost: '2.00', currency: 'USD' },
};

/** Random digits: like a real inventory, each search shows other numbers, so bought ones never exhaust it. */
const randomDigits = (count: number) => Array.from({ length: count }, () => String(randomInt(10))).join('');

function candidate(plan: NumberingPlan, prefix: string, query: AvailableNumberQuery, attempt: number): string | null {
  const restLength = plan.nationalLength - prefix.length;
  let rest = randomDigits(restLength);
  const contains = query.contains;
  if (contains && !`${prefix}${rest}`.includes(contains)) {
    if (contains.length > restLength) return null;
    const at = attempt % (restLength - contains.length + 1);
    rest = rest.slice(0, at) + contains + rest.slice(at + contains.length);
  }
  if (plan.isNanp && !/^[2-9]/.test(rest)) return null;
  // Numbers ending in 0000 make the sandbox SMS provider fail; never sell them.
  if (rest.endsWith('0000')) return null;
  return `+${plan.callingCode}${prefix}${rest}`;
}

/**
 * Whether `number` is in the NANP range reserved for fiction (+1 NXX 555-0100 to 555-0199, in any area code): no one
 * can ever own it, so a test key buying it takes nothing from a live organization.
 * @example isFictionalNumber('+14155550142') // true
 */
export function isFictionalNumber(number: string): boolean {
  return /^\+1[2-9]\d{2}55501\d{2}$/.test(number);
}

/** Up to `limit` fictional numbers for the prefixes asked, in a random order, each containing `contains`. */
function fictionalCandidates(plan: NumberingPlan, prefixes: string[], query: AvailableNumberQuery): string[] {
  const all = prefixes.flatMap((prefix) => Array.from({ length: 100 }, (_, n) => `${prefix}55501${String(n).padStart(2, '0')}`));
  const fitting = all.filter((national) => !query.contains || national.includes(query.contains));
  for (let i = fitting.length - 1; i > 0; i -= 1) {
    const j = randomInt(i + 1);
    [fitting[i], fitting[j]] = [fitting[j]!, fitting[i]!];
  }
  return fitting.slice(0, query.limit).map((national) => `+${plan.callingCode}${national}`);
}

/** The plan, type and prefix of an E.164 number the sandbox could have offered; null when it never would. */
export function describeSandboxNumber(number: string): { country: string; type: NumberType; prefix: string } | null {
  for (const [country, plan] of Object.entries(PLANS)) {
    if (!number.startsWith(`+${plan.callingCode}`) || number.length !== 1 + plan.callingCode.length + plan.nationalLength) continue;
    const national = number.slice(1 + plan.callingCode.length);
    for (const type of ['tollFree', 'mobile', 'local'] as const) {
      const prefix = plan.prefixes[type].find((p) => national.startsWith(p));
      if (prefix) return { country, type, prefix };
    }
  }
  return null;
}

/**
 * Searches return plausible E.164 numbers for the country, area code, `contains` and type asked; orders succeed for
 * any number such a search could return. Nothing leaves the machine. With `fictionalOnly` (a test key's) it offers
 * and sells only the reserved fictional range (`isFictionalNumber`: US and Canada, local and mobile), so numbers
 * bought for testing never block a real one.
 * @example const numbers = await createSandboxNumberProvider().searchAvailable({ country: 'US', areaCode: '415', limit: 5 });
 */
export function createSandboxNumberProvider(options: { fictionalOnly?: boolean } = {}): NumberProvider {
  const fictionalOnly = options.fictionalOnly ?? false;
  return {
    name: 'sandbox',
    async searchAvailable(query) {
      const plan = PLANS[query.country];
      if (!plan) return [];
      const type = query.type ?? 'local';
      let prefixes = plan.prefixes[type];
      if (query.areaCode) {
        const areaCode = query.areaCode;
        const fitsPlan = areaCode.length < plan.nationalLength && (!plan.isNanp || /^[2-9]\d\d$/.test(areaCode));
        const isTollFree = plan.prefixes.tollFree.includes(areaCode);
        if (!fitsPlan || (type === 'tollFree') !== isTollFree) return [];
        prefixes = [areaCode];
      }
      if (fictionalOnly && (!plan.isNanp || type === 'tollFree')) return [];
      const found = new Set<string>(fictionalOnly ? fictionalCandidates(plan, prefixes, query) : []);
      for (let attempt = 0; !fictionalOnly && found.size < query.limit && attempt < query.limit * 20; attempt += 1) {
        const number = candidate(plan, prefixes[attempt % prefixes.length]!, query, attempt);
        if (number) found.add(number);
      }
      return [...found].map((number): AvailableNumber => {
        const prefix = prefixes.find((p) => number.startsWith(`+${plan.callingCode}${p}`)) ?? '';
        const region = plan.regions?.[prefix];
        return {
          number,
          type,
          country: query.country,
          region: region?.[0] ?? null,
          locality: region?.[1] ?? null,
          features: type === 'tollFree' ? ['sms', 'voice'] : ['sms', 'mms', 'voice'],
          monthlyCost: { amount: plan.monthlyCost, currency: plan.currency },
        };
      });
    },
    async order(number) {
      const described = describeSandboxNumber(number);
      if (fictionalOnly && isFictionalNumber(number)) {
        // any area code: a search with `areaCode` offers its fictional numbers
        return { providerNumberId: null, type: described?.type ?? 'local', country: described?.country ?? 'US' };
      }
      if (!described || fictionalOnly) throw new ProviderError('sandbox', 'The sandbox has no such number', { isRetryable: false, reason: 'number_unavailable' });
      return { providerNumberId: null, type: described.type, country: described.country };
    },
    async update() {},
    async release() {},
  };
}
