// The criteria compiler is a store module now (`criteria.store.ts`); this keeps the old path for the importers in
// other folders (the core index, the broadcast fan-out) until they import the store themselves.
export { compileCriteria, utcTimestamp } from './criteria.store.ts';
