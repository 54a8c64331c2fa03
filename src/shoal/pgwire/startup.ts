/**
 * The startup phase of a pgwire connection: SSLRequest (answered 'S' and upgraded to TLS with
 * `server.tls`'s certificate, else 'N'), GSSENCRequest ('N'), CancelRequest (handed to the
 * cancel registry, then the connection closes), and the StartupMessage with its parameters; then
 * authentication by the instance's authenticator, the one place credentials are checked (S7).
 *
 * shoal stores scrypt password hashes, from which no SCRAM-SHA-256 verifier can be derived, so
 * the password is asked for with AuthenticationCleartextPassword: accepted over TLS or from a
 * loopback peer, refused elsewhere unless the operator allowed it (`--pg-insecure-password`).
 * The password is a registry user's (with the startup `user`), an access token `shoal_pat_…`
 * (the user name is then ignored), or under `provider: oidc` an OIDC token.
 */
import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import { looksLikeToken } from '../auth/access-token.js';
import type { Principal } from '../auth/principal.js';
import { ShoalError } from '../errors.js';
import type { PgContext } from './governed-query.js';
import type { CancelRegistry } from './cancel-registry.js';
import { BodyReader, MessageReader } from './message-reader.js';
import { authenticationCleartextPassword, errorResponse } from './message-writer.js';
import { PgProtocolError } from './pg-protocol-error.js';
import { errorFieldsOf } from './sqlstate.js';

const PROTOCOL_3 = 196_608;
const SSL_REQUEST = 80_877_103;
const GSSENC_REQUEST = 80_877_104;
const CANCEL_REQUEST = 80_877_102;

export interface StartupOptions {
  readonly ctx: PgContext;
  readonly cancels: CancelRegistry;
  /** TLS for SSLRequest; absent: SSLRequest is answered 'N'. */
  readonly tls?: SecureContext;
  /** Accept a cleartext password from a non-loopback peer without TLS. */
  readonly insecurePassword: boolean;
  readonly maxMessage: number;
}

export interface Started {
  /** The socket to speak on from now (the TLS socket after an upgrade). */
  readonly socket: Socket;
  readonly reader: MessageReader;
  readonly params: ReadonlyMap<string, string>;
  readonly principal: Principal;
}

/** Whether a peer address is this machine. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/** `-c name=value` and `--name=value` settings of the startup `options` parameter (backslash escapes a space). */
export function parseOptions(options: string): Map<string, string> {
  const words: string[] = [];
  let cur = '';
  for (let i = 0; i < options.length; i++) {
    const c = options[i]!;
    if (c === '\\' && i + 1 < options.length) cur += options[++i];
    else if (/\s/.test(c)) {
      if (cur) words.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) words.push(cur);
  const out = new Map<string, string>();
  for (let i = 0; i < words.length; i++) {
    let setting: string | undefined;
    if (words[i] === '-c') setting = words[++i];
    else if (words[i]!.startsWith('-c')) setting = words[i]!.slice(2);
    else if (words[i]!.startsWith('--')) setting = words[i]!.slice(2);
    const eq = setting?.indexOf('=') ?? -1;
    if (setting && eq > 0) out.set(setting.slice(0, eq).replace(/-/g, '_').toLowerCase(), setting.slice(eq + 1));
  }
  return out;
}

/** Send a FATAL error and close; the startup phase is over. */
export function refuse(socket: Socket, e: unknown): void {
  socket.end(errorResponse(errorFieldsOf(e, undefined, 'FATAL')));
}

/** Run the startup phase; undefined when the connection ended (or was a CancelRequest). */
export async function startup(raw: Socket, opts: StartupOptions): Promise<Started | undefined> {
  let socket: Socket = raw;
  let reader = new MessageReader(socket, opts.maxMessage);
  let encrypted = false;
  let params: Map<string, string> | undefined;
  while (!params) {
    const pkt = await reader.startupPacket();
    if (!pkt) return undefined;
    const body = new BodyReader(pkt.body);
    const code = body.int32();
    if (code === SSL_REQUEST && !encrypted) {
      if (!opts.tls) {
        socket.write('N');
        continue;
      }
      // bytes sent before the handshake would be trusted as if encrypted (CVE-2021-23214): refuse
      if (reader.detach().length > 0) throw new PgProtocolError('data was sent after SSLRequest before the TLS handshake');
      socket.write('S');
      const tls = new TLSSocket(socket, { isServer: true, secureContext: opts.tls });
      socket = tls;
      encrypted = true;
      reader = new MessageReader(socket, opts.maxMessage);
    } else if (code === GSSENC_REQUEST) {
      socket.write('N');
    } else if (code === CANCEL_REQUEST) {
      opts.cancels.cancel(body.int32(), body.int32());
      socket.end();
      return undefined;
    } else if (code === PROTOCOL_3) {
      params = new Map();
      for (;;) {
        const key = body.cstring();
        if (key === '') break;
        params.set(key, body.cstring());
      }
    } else {
      throw new PgProtocolError(`unsupported frontend protocol ${code >>> 16}.${code & 0xffff}: server supports 3.0`, '0A000');
    }
  }
  const encoding = (params.get('client_encoding') ?? 'UTF8').toUpperCase().replace(/[-_]/g, '');
  if (!['UTF8', 'UNICODE', 'SQLASCII', 'AUTO'].includes(encoding)) {
    throw new PgProtocolError(`client_encoding ${params.get('client_encoding')} is not supported: shoal speaks UTF8 only`, '22023');
  }
  const principal = await authenticate(socket, reader, params, encrypted, opts);
  return { socket, reader, params, principal };
}

async function authenticate(socket: Socket, reader: MessageReader, params: ReadonlyMap<string, string>, encrypted: boolean, opts: StartupOptions): Promise<Principal> {
  const authenticator = opts.ctx.auth.authenticator;
  if (authenticator.provider === 'none') return authenticator.authenticate(undefined);
  if (!encrypted && !isLoopback(socket.remoteAddress) && !opts.insecurePassword) {
    throw new ShoalError('AUTH_REQUIRED', 'a password is not accepted over an unencrypted connection from another host', {
      hint: 'connect with sslmode=require (the server needs server.tls), or the operator starts serve with --pg-insecure-password',
    });
  }
  socket.write(authenticationCleartextPassword());
  const m = await reader.message();
  if (!m) throw new PgProtocolError('the connection closed during authentication');
  if (m.type !== 'p') throw new PgProtocolError(`expected a password message, got '${m.type}'`);
  const password = new BodyReader(m.body).cstring();
  const user = params.get('user') ?? '';
  const bearer = looksLikeToken(password) || (authenticator.provider === 'oidc' && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(password));
  const header = bearer ? `Bearer ${password}` : `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  return authenticator.authenticate(header);
}
