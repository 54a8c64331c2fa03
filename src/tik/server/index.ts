/** `tik serve`: the HTTP replica (read/write API, sync endpoints, /health, board) and anti-entropy. */
export { buildTikServer, type TikServer, type TikServerOptions } from './tik-server.js';
export { AntiEntropy } from './anti-entropy.js';
export { WRITE_VERBS } from './write-op.js';
export { type Authorship, type TokenGrant, type TokenTable, parseTokens, readTokensFile, tokenHash } from './authorship.js';
