export { openDeps } from './open-deps.ts';
