import type { Command } from '../command.ts';
import { doctor } from './doctor.ts';
import { domains } from './domains.ts';
import { keys } from './keys.ts';
import { migrate } from './migrate.ts';
import { orgs } from './orgs.ts';
import { status } from './status.ts';
import { users } from './users.ts';

/** Every `tidings` command, in the order the usage lists them. A new command is a file here and a line below. */
export const commands: readonly Command[] = [migrate, status, doctor, ...orgs, ...users, ...keys, ...domains];
