import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { parsePersonEmail } from './people.service.ts';
import { updateInstallOperatorByEmail } from './user.store.ts';

/**
 * Makes a person an install operator, or stops them being one: the only people who see and act on the queues
 * shared by every organization (Bull Board). The install's first account is one; owning an organization never
 * grants it, only the command line does.
 * @example await setInstallOperator(deps, 'ops@example.com', true) // { email: 'ops@example.com', isInstallOperator: true }
 */
export async function setInstallOperator({ db }: Pick<Deps, 'db'>, email: string, isInstallOperator: boolean): Promise<{ email: string; isInstallOperator: boolean }> {
  const address = parsePersonEmail(email);
  const { count } = await updateInstallOperatorByEmail(db, address, isInstallOperator);
  if (count === 0) throw new AppError('NOT_FOUND', `No account has the email ${address}; create it first with "tidings users create"`);
  return { email: address, isInstallOperator };
}
