export { startSubmissionServer, type SubmissionServer } from './submission-server.ts';
export { loadTlsPair, type TlsPair } from './tls-pair.ts';
export { mailToSend } from './mail-to-send.ts';
