export { closeDb, createDb, pgPoolOf, queryPrepared, queryRows, type Db } from './client.ts';
export { createReads, type ReadChoice, type Reads, type ReplicaState } from './replicas.ts';
export { migrate, ensureDatabase, diffSchemaSinceLastMigration, listMigrations, prismaDir } from './migrate.ts';
export { Prisma } from './generated/client.ts';
export type * from './generated/client.ts';
export { columnsOf } from './columns.ts';
