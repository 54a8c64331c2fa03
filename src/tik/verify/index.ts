/**
 * tik's trust ladder: `verifyStore` (L0 integrity, L1 authorship, L2 pin and derivation, L3 head
 * witnesses, plus store-wide archive and root-witness checks) and signing (`signEvent`, `signProcess`, `loadSigningKey`).
 */
export { type Level, type LevelReport, type TicketReport, type VerifyReport } from './verify-report.js';
export {
  type VerifyOptions,
  verifyStore,
  verifyTicket,
  verifyArchive,
  verifyRootWitnesses,
  PROCESS_NAMESPACE,
  WITNESS_NAMESPACE,
} from './verify-store.js';
export { EVENT_NAMESPACE } from './level-l1.js';
export { type SignResult, signEvent, signProcess, witnessEvent, witnessRoot, loadSigningKey } from './sign-event.js';
