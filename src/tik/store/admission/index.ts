/** Admission (law T7): the one check at every edge where bytes enter a store. */
export { ADMISSION_LIMITS, mebibytes } from './limits.js';
export { admitEventBytes, admitProcessText, checkSize, refusal } from './admit-record.js';
export { admitSidecar, definitionSidecarProblem, replacesStored, sidecarProblem } from './admit-sidecar.js';
export { admitBatch, pinnedHash, type AdmissionBatch, type AdmittedBatch, type AdmitOptions, type DeferredEvent } from './admit-batch.js';
export { readFileBounded } from './read-bounded.js';
export { refuseLinks } from './regular-files.js';
