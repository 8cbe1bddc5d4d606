export { openDeps, type OpenedDeps } from './open-deps.ts';
