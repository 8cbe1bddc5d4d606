import type { Contact } from '@tidings/contracts';
import { Table } from './list.tsx';
import { Time } from './render.tsx';

const BASE = '/contacts';

/**
 * A contact's name as people read it, empty when it has none.
 * @example fullName({ firstName: 'Ada', lastName: null, ... }) // 'Ada'
 */
export const fullName = (contact: Contact): string => [contact.firstName, contact.lastName].filter(Boolean).join(' ');

/** Email and SMS subscription of a contact, as two small badges. */
export function Subscriptions({ contact }: { contact: Contact }) {
  return (
    <>
      <span class={`badge ${contact.emailSubscribed ? 'enabled' : 'disabled'}`}>Email {contact.emailSubscribed ? 'on' : 'off'}</span>{' '}
      <span class={`badge ${contact.smsSubscribed ? 'enabled' : 'disabled'}`}>SMS {contact.smsSubscribed ? 'on' : 'off'}</span>
    </>
  );
}

/**
 * A table of contacts linking to each one; the segment page lists its matches with it too.
 * @example <ContactsTable contacts={page.data} />
 */
export function ContactsTable({ contacts }: { contacts: Contact[] }) {
  return (
    <Table headers={['Name', 'Email', 'Phone', 'Subscribed', 'Added']}>
      {contacts.map((contact) => (
        <tr data-contact-id={contact.id}>
          <td class="name">
            <a href={`${BASE}/${contact.id}`}>{fullName(contact) || contact.email || contact.phone}</a>
          </td>
          <td>{contact.email ?? <span class="muted">—</span>}</td>
          <td>{contact.phone ?? <span class="muted">—</span>}</td>
          <td>
            <Subscriptions contact={contact} />
          </td>
          <td>
            <Time at={contact.createdAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
