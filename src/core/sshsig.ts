/**
 * OpenSSH SSHSIG detached signatures for Ed25519, in process (tik-model.md §8.4).
 *
 * Wire format (OpenSSH PROTOCOL.sshsig):
 *   blob   = "SSHSIG" ‖ uint32(1) ‖ string(publickey) ‖ string(namespace) ‖ string(reserved)
 *            ‖ string(hash_algorithm) ‖ string(signature)
 *   signed = "SSHSIG" ‖ string(namespace) ‖ string(reserved) ‖ string(hash_algorithm)
 *            ‖ string(H(message))
 * where `string` is a uint32 big-endian length and the bytes. Ed25519 is deterministic, so a
 * signature made here equals `ssh-keygen -Y sign`'s byte for byte, armour included.
 *
 * Parsing throws `CodedError` with a `sshsig/…` code; verification returns a result and never
 * throws for a bad signature.
 */
import { createHash, createPrivateKey, createPublicKey, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { CodedError } from './errors.js';

const MAGIC = Buffer.from('SSHSIG', 'ascii');
const SIG_BEGIN = '-----BEGIN SSH SIGNATURE-----';
const SIG_END = '-----END SSH SIGNATURE-----';
const KEY_BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----';
const KEY_END = '-----END OPENSSH PRIVATE KEY-----';
const KEY_MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const ED25519 = 'ssh-ed25519';
/** The prefixes of SSH key type names (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`, `sk-…`). */
const KEY_TYPE = /^(ssh-|ecdsa-|sk-|rsa-sha2-)/;
/** OpenSSH wraps armoured base64 at 70 columns. */
const LINE = 70;

export type SshHashAlgorithm = 'sha256' | 'sha512';

/** An Ed25519 public key: its wire blob (`string("ssh-ed25519") ‖ string(32 bytes)`). */
export interface SshPublicKey {
  readonly type: typeof ED25519;
  /** The 32-byte Ed25519 point. */
  readonly raw: Uint8Array;
  /** The whole key blob, as in `authorized_keys`/`allowed_signers` after base64 decoding. */
  readonly blob: Uint8Array;
  /** `blob` in base64, the second field of a public key line. */
  readonly base64: string;
}

/** A parsed SSHSIG blob. `publicKey` is undefined when the key type is not Ed25519. */
export interface SshSignature {
  readonly version: number;
  readonly publicKeyType: string;
  readonly publicKeyBlob: Uint8Array;
  readonly publicKey: SshPublicKey | undefined;
  readonly namespace: string;
  readonly reserved: Uint8Array;
  readonly hashAlgorithm: string;
  readonly signatureType: string;
  readonly signature: Uint8Array;
}

/** An unencrypted OpenSSH Ed25519 private key. */
export interface SshPrivateKey {
  readonly publicKey: SshPublicKey;
  readonly comment: string;
  /** The node:crypto key object; the seed never leaves it. */
  readonly keyObject: KeyObject;
}

/** One line of an OpenSSH allowed-signers file. */
export interface AllowedSigner {
  /** Principal patterns (comma-separated in the file; `*` and `?` wildcards). */
  readonly principals: readonly string[];
  /** Namespace patterns from `namespaces="…"`; undefined means every namespace. */
  readonly namespaces: readonly string[] | undefined;
  readonly certAuthority: boolean;
  readonly keyType: string;
  readonly keyBase64: string;
  /** Undefined when the key type is not Ed25519 (kept, so the line still round-trips). */
  readonly publicKey: SshPublicKey | undefined;
  readonly comment: string | undefined;
  /** 1-based line number in the source text. */
  readonly line: number;
}

/** Why a verification failed, for callers that map failures to their own codes. */
export type SshVerifyFailure =
  /** The armour or blob does not parse. */
  | 'malformed'
  /** The signature is for another namespace than the one checked. */
  | 'namespace'
  /** A key or hash algorithm this module does not verify (fall back to ssh-keygen). */
  | 'unsupported'
  /** The signature does not match the bytes. */
  | 'bad-signature'
  /** The key is not in the allowed signers. */
  | 'unknown-key'
  /** The key is allowed, but for other principals. */
  | 'wrong-principal'
  /** The key is allowed for the principal, but not in this namespace. */
  | 'namespace-not-allowed';

export type SshVerifyResult =
  | { readonly ok: true; readonly publicKey: SshPublicKey; readonly principals: readonly string[] }
  | { readonly ok: false; readonly failure: SshVerifyFailure; readonly reason: string; readonly publicKey?: SshPublicKey };

function malformed(message: string, where?: string, hint?: string): CodedError {
  return new CodedError('sshsig/malformed', message, { where, hint });
}

/** Reads the SSH wire primitives from a buffer; every read is bounds-checked. */
class WireReader {
  private off = 0;
  constructor(private readonly buf: Buffer, private readonly what: string) {}

  get remaining(): number {
    return this.buf.length - this.off;
  }

  bytes(n: number): Buffer {
    if (n < 0 || this.off + n > this.buf.length) throw malformed(`${this.what} is truncated`);
    const b = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return b;
  }

  uint32(): number {
    return this.bytes(4).readUInt32BE(0);
  }

  string(): Buffer {
    return this.bytes(this.uint32());
  }

  text(): string {
    const b = this.string();
    const s = b.toString('utf8');
    if (!Buffer.from(s, 'utf8').equals(b)) throw malformed(`${this.what} holds a string that is not UTF-8`);
    return s;
  }
}

function sshString(b: Uint8Array | string): Buffer {
  const body = typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length, 0);
  return Buffer.concat([len, body]);
}

function freezeKey(raw: Uint8Array): SshPublicKey {
  const blob = Buffer.concat([sshString(ED25519), sshString(raw)]);
  return Object.freeze({
    type: ED25519,
    raw: new Uint8Array(raw),
    blob: new Uint8Array(blob),
    base64: blob.toString('base64'),
  });
}

/** Decodes an SSH public key blob; undefined if it is a well-formed blob of another key type. */
function decodeKeyBlob(blob: Uint8Array, what: string): { type: string; key: SshPublicKey | undefined } {
  const r = new WireReader(Buffer.from(blob), what);
  const type = r.text();
  if (type !== ED25519) return { type, key: undefined };
  const raw = r.string();
  if (raw.length !== 32) throw malformed(`${what}: an Ed25519 key is 32 bytes, found ${raw.length}`);
  if (r.remaining !== 0) throw malformed(`${what}: ${r.remaining} unexpected trailing bytes after the key`);
  return { type, key: freezeKey(raw) };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function strictBase64(text: string, what: string): Buffer {
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw malformed(`${what} is not valid base64`);
  return Buffer.from(text, 'base64');
}

/** Decodes an Ed25519 public key from the base64 field of a key line (`AAAAC3NzaC1lZDI1NTE5…`). */
export function publicKeyFromBase64(b64: string): SshPublicKey {
  const { type, key } = decodeKeyBlob(strictBase64(b64, 'public key'), 'public key');
  if (!key) {
    throw new CodedError('sshsig/unsupported-key', `key type ${type} is not supported in process`, {
      hint: 'use an Ed25519 key (ssh-keygen -t ed25519)',
    });
  }
  return key;
}

/** A public key line of any type: Ed25519 keys are decoded, others kept as type and base64. */
export interface AnyPublicKey {
  readonly type: string;
  readonly base64: string;
  /** Set for Ed25519 keys, which this module verifies in process. */
  readonly publicKey: SshPublicKey | undefined;
  readonly comment: string | undefined;
}

/**
 * Parses a `.pub` line of any SSH key type (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-*`, `sk-*`):
 * the blob must decode and name the same type as the line. Non-Ed25519 keys are verified by
 * `ssh-keygen` rather than in process.
 */
export function parseAnyPublicKeyLine(line: string): AnyPublicKey {
  const m = /^\s*(\S+)\s+(\S+)(?:\s+(.*?))?\s*$/.exec(line);
  if (!m || !KEY_TYPE.test(m[1]!)) {
    throw malformed('a public key line is "<type> <base64> [comment]"', undefined, 'use the contents of a .pub file');
  }
  const [, type, b64, comment] = m;
  const decoded = decodeKeyBlob(strictBase64(b64!, 'public key'), 'public key');
  if (decoded.type !== type) throw malformed(`the key line says ${type} but the key is ${decoded.type}`);
  return Object.freeze({ type: type!, base64: b64!, publicKey: decoded.key, comment: comment === undefined || comment === '' ? undefined : comment });
}

/** Parses an `ssh-ed25519 <base64> [comment]` line (a `.pub` file). */
export function parsePublicKeyLine(line: string): { readonly publicKey: SshPublicKey; readonly comment: string | undefined } {
  const m = /^\s*(\S+)\s+(\S+)(?:\s+(.*?))?\s*$/.exec(line);
  if (!m) throw malformed('a public key line is "<type> <base64> [comment]"', undefined, 'use the contents of a .pub file');
  const [, type, b64, comment] = m;
  if (type !== ED25519) {
    throw new CodedError('sshsig/unsupported-key', `key type ${type} is not supported in process`, {
      hint: 'use an Ed25519 key (ssh-keygen -t ed25519)',
    });
  }
  const publicKey = publicKeyFromBase64(b64!);
  return { publicKey, comment: comment === undefined || comment === '' ? undefined : comment };
}

/** `fpr16`: the first 16 hex digits of SHA-256 over the decoded key blob (the sidecar suffix). */
export function fpr16(pubkeyB64: string): string {
  return createHash('sha256').update(strictBase64(pubkeyB64, 'public key')).digest('hex').slice(0, 16);
}

/** The OpenSSH fingerprint, `SHA256:<unpadded base64>`, as `ssh-keygen -l` prints it. */
export function sshFingerprint(key: SshPublicKey): string {
  return `SHA256:${createHash('sha256').update(key.blob).digest('base64').replace(/=+$/, '')}`;
}

function dearmor(text: string, begin: string, end: string, what: string): Buffer {
  const t = text.replace(/\r\n/g, '\n').trim();
  if (!t.startsWith(begin)) throw malformed(`${what} does not start with ${begin}`);
  const endAt = t.indexOf(end);
  if (endAt < 0) throw malformed(`${what} has no ${end} line`);
  if (t.slice(endAt + end.length).trim() !== '') throw malformed(`${what} has data after ${end}`);
  const body = t.slice(begin.length, endAt).replace(/\s+/g, '');
  return strictBase64(body, what);
}

function armor(blob: Uint8Array, begin: string, end: string): string {
  const b64 = Buffer.from(blob).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += LINE) lines.push(b64.slice(i, i + LINE));
  return `${begin}\n${lines.join('\n')}\n${end}\n`;
}

/** Parses an armoured `-----BEGIN SSH SIGNATURE-----` block (text or bytes). */
export function parseSshSignature(armored: string | Uint8Array): SshSignature {
  const text = typeof armored === 'string' ? armored : Buffer.from(armored).toString('utf8');
  const r = new WireReader(dearmor(text, SIG_BEGIN, SIG_END, 'SSH signature'), 'SSH signature');
  if (!r.bytes(MAGIC.length).equals(MAGIC)) throw malformed('SSH signature does not start with the SSHSIG magic');
  const version = r.uint32();
  if (version !== 1) throw malformed(`SSH signature version ${version} is not supported (expected 1)`);
  const publicKeyBlob = new Uint8Array(r.string());
  const namespace = r.text();
  const reserved = new Uint8Array(r.string());
  const hashAlgorithm = r.text();
  const sigBlob = r.string();
  if (r.remaining !== 0) throw malformed(`SSH signature has ${r.remaining} trailing bytes`);
  const { type: publicKeyType, key: publicKey } = decodeKeyBlob(publicKeyBlob, 'signature public key');
  const sr = new WireReader(sigBlob, 'signature value');
  const signatureType = sr.text();
  const signature = new Uint8Array(sr.string());
  if (sr.remaining !== 0) throw malformed(`signature value has ${sr.remaining} trailing bytes`);
  return Object.freeze({
    version,
    publicKeyType,
    publicKeyBlob,
    publicKey,
    namespace,
    reserved,
    hashAlgorithm,
    signatureType,
    signature,
  });
}

function signedData(namespace: string, reserved: Uint8Array, hashAlgorithm: SshHashAlgorithm, message: Uint8Array): Buffer {
  const digest = createHash(hashAlgorithm).update(message).digest();
  return Buffer.concat([MAGIC, sshString(namespace), sshString(reserved), sshString(hashAlgorithm), sshString(digest)]);
}

function nodePublicKey(key: SshPublicKey): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.raw).toString('base64url') }, format: 'jwk' });
}

/**
 * Checks that `armored` is a valid signature over `message` in `namespace`, cryptographically
 * only (no trust decision): the key is the one embedded in the signature.
 */
export function verifySshSignature(armored: string | Uint8Array, message: Uint8Array, namespace: string): SshVerifyResult {
  let sig: SshSignature;
  try {
    sig = parseSshSignature(armored);
  } catch (e) {
    return { ok: false, failure: 'malformed', reason: e instanceof Error ? e.message : String(e) };
  }
  if (sig.namespace !== namespace) {
    return { ok: false, failure: 'namespace', reason: `signature namespace is "${sig.namespace}", expected "${namespace}"` };
  }
  if (sig.hashAlgorithm !== 'sha512' && sig.hashAlgorithm !== 'sha256') {
    return { ok: false, failure: 'unsupported', reason: `signature hash algorithm "${sig.hashAlgorithm}" is not sha256 or sha512` };
  }
  if (!sig.publicKey) return { ok: false, failure: 'unsupported', reason: `key type ${sig.publicKeyType} is not verified in process` };
  if (sig.signatureType !== ED25519) {
    return { ok: false, failure: 'malformed', reason: `signature type "${sig.signatureType}" does not match key type ${ED25519}` };
  }
  if (sig.signature.length !== 64) return { ok: false, failure: 'malformed', reason: 'an Ed25519 signature is 64 bytes' };
  const data = signedData(sig.namespace, sig.reserved, sig.hashAlgorithm, message);
  const good = cryptoVerify(null, data, nodePublicKey(sig.publicKey), sig.signature);
  if (!good) return { ok: false, failure: 'bad-signature', reason: 'signature does not match the bytes', publicKey: sig.publicKey };
  return { ok: true, publicKey: sig.publicKey, principals: [] };
}

export type SshTrustResult =
  | { readonly ok: true; readonly principals: readonly string[] }
  | { readonly ok: false; readonly failure: 'unknown-key' | 'wrong-principal' | 'namespace-not-allowed'; readonly reason: string };

/**
 * The allowed-signers half of `ssh-keygen -Y verify`, for a key of any type (given as the base64
 * of its blob): is the key listed for `principal` (or, when undefined, for anyone) with a
 * namespace pattern admitting `namespace`? Certificate-authority lines are not honoured.
 */
export function trustCheck(
  keyBase64: string,
  principal: string | undefined,
  namespace: string,
  allowed: readonly AllowedSigner[],
): SshTrustResult {
  const fp = fpr16(keyBase64);
  const byKey = allowed.filter((a) => !a.certAuthority && a.keyBase64 === keyBase64);
  if (byKey.length === 0) return { ok: false, failure: 'unknown-key', reason: `key ${fp} is not in the allowed signers` };
  const matching = principal === undefined ? byKey : byKey.filter((a) => matchPatternList(principal, a.principals));
  if (matching.length === 0) {
    const owners = [...new Set(byKey.flatMap((a) => a.principals))].join(', ');
    return { ok: false, failure: 'wrong-principal', reason: `key ${fp} belongs to ${owners}, not "${principal}"` };
  }
  const inNs = matching.filter((a) => a.namespaces === undefined || matchPatternList(namespace, a.namespaces));
  if (inNs.length === 0) {
    const who = principal === undefined ? '' : ` of "${principal}"`;
    return { ok: false, failure: 'namespace-not-allowed', reason: `key ${fp}${who} is not allowed namespace "${namespace}"` };
  }
  return { ok: true, principals: inNs.flatMap((a) => a.principals) };
}

/**
 * `ssh-keygen -Y verify -f allowed -I principal -n namespace`: the signature must be valid, and
 * its key must be listed in `allowed` for `principal` with a namespace pattern admitting
 * `namespace`. On success `principals` lists the matching lines' principal patterns.
 */
export function verifyAsPrincipal(
  armored: string | Uint8Array,
  message: Uint8Array,
  namespace: string,
  principal: string,
  allowed: readonly AllowedSigner[],
): SshVerifyResult {
  const crypto = verifySshSignature(armored, message, namespace);
  if (!crypto.ok) return crypto;
  const trust = trustCheck(crypto.publicKey.base64, principal, namespace, allowed);
  if (!trust.ok) return { ...trust, publicKey: crypto.publicKey };
  return { ok: true, publicKey: crypto.publicKey, principals: trust.principals };
}

/**
 * `ssh-keygen -Y find-principals` plus verification: the signature must be valid, and on success
 * `principals` are those whose allowed-signers lines list the key for `namespace`.
 */
export function verifyAnyPrincipal(
  armored: string | Uint8Array,
  message: Uint8Array,
  namespace: string,
  allowed: readonly AllowedSigner[],
): SshVerifyResult {
  const crypto = verifySshSignature(armored, message, namespace);
  if (!crypto.ok) return crypto;
  const trust = trustCheck(crypto.publicKey.base64, undefined, namespace, allowed);
  if (!trust.ok) return { ...trust, publicKey: crypto.publicKey };
  return { ok: true, publicKey: crypto.publicKey, principals: trust.principals };
}

/** Parses an unencrypted OpenSSH Ed25519 private key file (`-----BEGIN OPENSSH PRIVATE KEY-----`). */
export function parseOpenSshPrivateKey(text: string, where?: string): SshPrivateKey {
  const bad = (message: string, hint?: string) => new CodedError('sshsig/bad-private-key', message, { where, hint });
  let buf: Buffer;
  try {
    buf = dearmor(text, KEY_BEGIN, KEY_END, 'private key');
  } catch (e) {
    throw bad(e instanceof Error ? e.message : String(e), 'give an OpenSSH private key file (ssh-keygen -t ed25519)');
  }
  try {
    const r = new WireReader(buf, 'private key');
    if (!r.bytes(KEY_MAGIC.length).equals(KEY_MAGIC)) throw bad('not an openssh-key-v1 private key');
    const cipher = r.text();
    const kdf = r.text();
    r.string(); // kdf options
    if (cipher !== 'none' || kdf !== 'none') {
      throw bad(`the private key is encrypted (cipher ${cipher})`, "remove the passphrase with ssh-keygen -p -N '' -f KEY, or use an unencrypted signing key");
    }
    const n = r.uint32();
    if (n !== 1) throw bad(`the key file holds ${n} keys; exactly one is supported`);
    const pubBlob = r.string();
    const priv = new WireReader(r.string(), 'private key section');
    const check1 = priv.uint32();
    const check2 = priv.uint32();
    if (check1 !== check2) throw bad('the private key check integers differ (corrupt or wrong passphrase)');
    const type = priv.text();
    if (type !== ED25519) {
      throw new CodedError('sshsig/unsupported-key', `key type ${type} is not supported for in-process signing`, {
        where,
        hint: 'use an Ed25519 key (ssh-keygen -t ed25519)',
      });
    }
    const pub = priv.string();
    const secret = priv.string();
    const comment = priv.text();
    // Padding is 1, 2, 3, … up to the cipher block size.
    const pad = priv.bytes(priv.remaining);
    for (let i = 0; i < pad.length; i++) if (pad[i] !== i + 1) throw bad('the private key padding is corrupt');
    if (pub.length !== 32 || secret.length !== 64) throw bad('an Ed25519 private key holds a 32-byte public and 64-byte secret part');
    if (!Buffer.from(secret.subarray(32)).equals(pub)) throw bad('the private key does not match its public key');
    const publicKey = freezeKey(pub);
    if (!Buffer.from(pubBlob).equals(Buffer.from(publicKey.blob))) throw bad('the public key section does not match the private key');
    const keyObject = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: secret.subarray(0, 32).toString('base64url'), x: pub.toString('base64url') },
      format: 'jwk',
    });
    // A seed that does not derive the stated public key would make signatures nobody can verify.
    const derived = createPublicKey(keyObject).export({ format: 'jwk' }).x;
    if (derived !== pub.toString('base64url')) throw bad('the private key seed does not derive its public key');
    return Object.freeze({ publicKey, comment, keyObject });
  } catch (e) {
    if (e instanceof CodedError && e.code !== 'sshsig/malformed') throw e;
    throw bad(e instanceof Error ? e.message : String(e));
  }
}

/** Signs `message` in `namespace`: the armoured text `ssh-keygen -Y sign` would write. */
export function signSshSignature(
  key: SshPrivateKey,
  message: Uint8Array,
  namespace: string,
  hashAlgorithm: SshHashAlgorithm = 'sha512',
): string {
  if (namespace === '') throw new CodedError('sshsig/bad-namespace', 'a signature namespace must not be empty');
  const reserved = new Uint8Array(0);
  const sig = cryptoSign(null, signedData(namespace, reserved, hashAlgorithm, message), key.keyObject);
  const blob = Buffer.concat([
    MAGIC,
    Buffer.from([0, 0, 0, 1]),
    sshString(key.publicKey.blob),
    sshString(namespace),
    sshString(reserved),
    sshString(hashAlgorithm),
    sshString(Buffer.concat([sshString(ED25519), sshString(sig)])),
  ]);
  return armor(blob, SIG_BEGIN, SIG_END);
}

/** OpenSSH `match_pattern`: `*` any run, `?` one character, whole-string match. */
export function matchPattern(s: string, pattern: string): boolean {
  let re = '^';
  for (const ch of pattern) re += ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${re}$`, 's').test(s);
}

/** OpenSSH `match_pattern_list`: a negated (`!`) match vetoes; otherwise any positive match wins. */
export function matchPatternList(s: string, patterns: readonly string[]): boolean {
  let got = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (matchPattern(s, p.slice(1))) return false;
    } else if (matchPattern(s, p)) {
      got = true;
    }
  }
  return got;
}

/** Splits an allowed-signers line into fields, keeping `"…"` quoted spans together. */
function splitFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && (ch === ' ' || ch === '\t')) {
      if (cur !== '') out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  if (quoted) throw malformed('an unterminated quote');
  if (cur !== '') out.push(cur);
  return out;
}

function splitOptions(field: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of field) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && ch === ',') {
      out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur);
  return out;
}


/**
 * Parses an allowed-signers file: `principals [options] keytype base64 [comment]` per line,
 * `#` comments and blank lines skipped. Options: `namespaces="…"`, `cert-authority`,
 * `valid-after=`, `valid-before=` (kept unchecked: tik has no clock in verify). Throws
 * `sshsig/bad-allowed-signers` naming the line.
 */
export function parseAllowedSigners(text: string, source = 'allowed signers'): readonly AllowedSigner[] {
  const out: AllowedSigner[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const where = `${source}:${lineNo}`;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fail = (message: string) =>
      new CodedError('sshsig/bad-allowed-signers', message, {
        where,
        position: { line: lineNo, column: 1 },
        hint: 'a line is: <name> namespaces="tik-*" ssh-ed25519 <base64> [comment]',
      });
    let fields: string[];
    try {
      fields = splitFields(line);
    } catch (e) {
      throw fail(e instanceof Error ? e.message : String(e));
    }
    if (fields.length < 3) throw fail('too few fields');
    const principals = fields[0]!.split(',');
    if (principals.some((p) => p === '')) throw fail('an empty principal');
    let k = 1;
    let namespaces: string[] | undefined;
    let certAuthority = false;
    if (!KEY_TYPE.test(fields[1]!)) {
      for (const opt of splitOptions(fields[1]!)) {
        const eq = opt.indexOf('=');
        const name = (eq < 0 ? opt : opt.slice(0, eq)).toLowerCase();
        const value = eq < 0 ? undefined : opt.slice(eq + 1).replace(/^"(.*)"$/s, '$1');
        if (name === 'cert-authority' && value === undefined) certAuthority = true;
        else if (name === 'namespaces' && value !== undefined) namespaces = value.split(',');
        else if ((name === 'valid-after' || name === 'valid-before') && value !== undefined) continue;
        else throw fail(`unknown option "${opt}"`);
      }
      k = 2;
    }
    const keyType = fields[k];
    const keyBase64 = fields[k + 1];
    if (keyType === undefined || keyBase64 === undefined) throw fail('missing key type or key');
    if (!KEY_TYPE.test(keyType)) throw fail(`"${keyType}" is not a key type`);
    let publicKey: SshPublicKey | undefined;
    try {
      const decoded = decodeKeyBlob(strictBase64(keyBase64, 'key'), 'key');
      if (decoded.type !== keyType) throw fail(`key type ${keyType} does not match the key blob (${decoded.type})`);
      publicKey = decoded.key;
    } catch (e) {
      if (e instanceof CodedError && e.code === 'sshsig/bad-allowed-signers') throw e;
      throw fail(e instanceof Error ? e.message : String(e));
    }
    const rest = fields.slice(k + 2).join(' ');
    out.push(
      Object.freeze({
        principals: Object.freeze(principals),
        namespaces: namespaces ? Object.freeze(namespaces) : undefined,
        certAuthority,
        keyType,
        keyBase64,
        publicKey,
        comment: rest === '' ? undefined : rest,
        line: lineNo,
      }),
    );
  });
  return Object.freeze(out);
}

/** Formats the `actors` line tik writes: `<name> namespaces="tik-*" ssh-ed25519 <b64> [comment]`. */
export function allowedSignerLine(name: string, key: { readonly type: string; readonly base64: string }, comment?: string): string {
  return `${name} namespaces="tik-*" ${key.type} ${key.base64}${comment ? ` ${comment}` : ''}`;
}
