import type { AvailablePhoneNumber, PhoneNumber } from '@tidings/contracts';
import { keywordReplyText } from '@tidings/core';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { Field, FormError, type FieldErrors } from './form.tsx';
import { CsrfField } from './layout.tsx';
import { Table } from './list.tsx';
import { Time } from './render.tsx';

/** The kinds of number a provider sells, as people name them. */
export const TYPES = { local: 'Local', mobile: 'Mobile', tollFree: 'Toll-free' } as const;

type Env = Context<DashEnv>;
/** A number search as typed. */
export type Search = { country: string; areaCode?: string; type?: string };

/** "Default" on the number an SMS without a from number goes out from. */
export function DefaultBadge({ phoneNumber }: { phoneNumber: PhoneNumber }) {
  return phoneNumber.isDefault ? <span class="badge enabled">Default</span> : null;
}

/** The button that makes a number the default; nothing on the default one. */
export function MakeDefault({ c, phoneNumber }: { c: Env; phoneNumber: PhoneNumber }) {
  if (phoneNumber.isDefault) return null;
  return (
    <form method="post" action={`/phone-numbers/${phoneNumber.id}/default`} class="actions">
      <CsrfField c={c} />
      <button type="submit" class="secondary outline small">
        Make default
      </button>
    </form>
  );
}

/** The keywords a number answers by itself: the reply's field, its label and what it is for. */
export const KEYWORDS = [
  ['stop', 'After STOP', 'The one confirmation sent after STOP; the last message the number gets until it writes START.'],
  ['start', 'After START', 'The confirmation sent when someone subscribes again.'],
  ['help', 'HELP and INFO', 'Answered whether or not the number opted out.'],
] as const;

/** The three keyword answers of a number; an empty box means the default, shown as its placeholder. */
export function RepliesForm({ c, phoneNumber, errors }: { c: Env; phoneNumber: PhoneNumber; errors: FieldErrors }) {
  const { config } = c.var.deps;
  const orgName = c.var.signedIn!.membership.orgName;
  return (
    <form method="post" action={`/phone-numbers/${phoneNumber.id}/replies`} class="card" aria-labelledby="replies-title">
      <CsrfField c={c} />
      <h2 id="replies-title">Keyword replies</h2>
      <p class="muted">Sent from this number, once per keyword received. Leave a box empty for the default shown in it.</p>
      {KEYWORDS.map(([keyword, label, hint]) => (
        <label>
          {label}
          <textarea
            name={keyword}
            rows={2}
            maxlength={1600}
            placeholder={keywordReplyText(keyword, {}, config.smsReplies, orgName)}
            aria-invalid={errors[keyword] ? 'true' : undefined}
          >
            {phoneNumber.replies[keyword] ?? ''}
          </textarea>
          <small>{errors[keyword] ?? hint}</small>
        </label>
      ))}
      <button type="submit" class="secondary">
        Save replies
      </button>
    </form>
  );
}

/** The search for a number to buy: country, area code, type. */
export function SearchForm({ search, errors }: { search: Search; errors: FieldErrors }) {
  return (
    <section class="card" aria-labelledby="search-title">
      <h2 id="search-title">Get a number</h2>
      <form method="get" action={'/phone-numbers/available'}>
        <FormError errors={errors} />
        <div class="create-row">
          <Field name="country" label="Country" errors={errors} value={search.country} maxlength={2} size={4} required />
          <Field name="areaCode" label="Area code" errors={errors} value={search.areaCode} placeholder="optional" maxlength={5} size={8} />
          <label>
            Type
            <select name="type">
              {Object.entries(TYPES).map(([value, label]) => (
                <option value={value} selected={search.type === value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="secondary">
            Search numbers
          </button>
        </div>
      </form>
    </section>
  );
}

/** The numbers a search found, each with its Buy button. */
export function AvailableTable({ c, numbers }: { c: Env; numbers: AvailablePhoneNumber[] }) {
  if (numbers.length === 0) return <p class="muted">No numbers match; try another area code.</p>;
  return (
    <Table headers={['Number', 'Where', 'Features', 'Monthly']} hasActions>
      {numbers.map((available) => (
        <tr data-number={available.number}>
          <td class="name">{available.number}</td>
          <td>{[available.locality, available.region, available.country].filter(Boolean).join(', ')}</td>
          <td>{available.features.join(', ')}</td>
          <td>{available.monthlyCost ? `${available.monthlyCost.amount} ${available.monthlyCost.currency}` : '—'}</td>
          <td>
            <form method="post" action="/phone-numbers" class="actions">
              <CsrfField c={c} />
              <input type="hidden" name="number" value={available.number} />
              <button type="submit" class="small">
                Buy
              </button>
            </form>
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** The organization's numbers; managers make one the default from here. */
export function NumbersTable({ c, numbers }: { c: Env; numbers: PhoneNumber[] }) {
  const manage = canManage(c.var.signedIn);
  return (
    <Table headers={['Number', 'Name', 'Type', 'Provider', 'Added', 'Default']}>
      {numbers.map((phoneNumber) => (
        <tr data-number-id={phoneNumber.id}>
          <td class="name">
            <a href={`/phone-numbers/${phoneNumber.id}`}>{phoneNumber.number}</a>
          </td>
          <td>{phoneNumber.friendlyName ?? <span class="muted">—</span>}</td>
          <td>
            {TYPES[phoneNumber.type]}
            {phoneNumber.country && <small class="muted"> · {phoneNumber.country}</small>}
          </td>
          <td>{phoneNumber.provider}</td>
          <td>
            <Time at={phoneNumber.createdAt} />
          </td>
          <td>{phoneNumber.isDefault ? <DefaultBadge phoneNumber={phoneNumber} /> : manage && <MakeDefault c={c} phoneNumber={phoneNumber} />}</td>
        </tr>
      ))}
    </Table>
  );
}

/** The number's sending rate (messagesPerSecond), which every send-worker keeps to; an empty box: its type's default. */
export function RateForm({ c, phoneNumber, errors }: { c: Env; phoneNumber: PhoneNumber; errors: FieldErrors }) {
  return (
    <form method="post" action={`/phone-numbers/${phoneNumber.id}/rate`} class="card">
      <CsrfField c={c} />
      <div class="create-row">
        <Field
          class="grow"
          name="messagesPerSecond"
          label="Messages a second"
          hint="What its carrier registration allows; every send-worker keeps to it. Empty: its type's default (a local long code 1, toll-free 3)."
          errors={errors}
          value={String(phoneNumber.messagesPerSecond)}
        />
        <button type="submit" class="secondary">
          Save rate
        </button>
      </div>
    </form>
  );
}
