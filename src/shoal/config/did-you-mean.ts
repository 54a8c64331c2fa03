// The typo suggestion is shared with tik's lint; it lives in src/core.
export { didYouMean, editDistance } from '../../core/did-you-mean.js';
