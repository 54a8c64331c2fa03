/**
 * A local OIDC issuer for the tests: RSA keys made with jose, a JWKS served over HTTP on
 * loopback (keys can be published and withdrawn to test rotation), and a signer for tokens.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, type CryptoKey } from 'jose';

export interface IssuerKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly publicPem: string;
}

export const ISSUER = 'https://issuer.shoal.test';
export const AUDIENCE = 'shoal-api';

export async function makeKey(kid: string): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { kid, privateKey, publicJwk: { ...jwk, kid, alg: 'RS256', use: 'sig' }, publicPem: await exportSPKI(publicKey) };
}

export class LocalIssuer {
  private published: IssuerKey[] = [];
  /** How many times the JWKS was fetched. */
  fetches = 0;

  private constructor(
    private readonly server: Server,
    readonly jwksUrl: string,
  ) {}

  static async start(): Promise<LocalIssuer> {
    const box: { self?: LocalIssuer } = {};
    const server = createServer((req, res) => {
      const self = box.self;
      if (req.url !== '/jwks') {
        res.writeHead(404).end();
        return;
      }
      self!.fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: self!.published.map((k) => k.publicJwk) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    box.self = new LocalIssuer(server, `http://127.0.0.1:${port}/jwks`);
    return box.self;
  }

  /** Replace the published key set. */
  publish(...keys: IssuerKey[]): void {
    this.published = keys;
  }

  /** A token signed by `key`, valid for an hour unless `claims` or `opts` say otherwise. */
  async sign(key: IssuerKey, claims: JWTPayload, opts: { iss?: string; aud?: string; expSecondsFromNow?: number; nbfSecondsFromNow?: number } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    let jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .setIssuer(opts.iss ?? ISSUER)
      .setAudience(opts.aud ?? AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + (opts.expSecondsFromNow ?? 3600));
    if (opts.nbfSecondsFromNow !== undefined) jwt = jwt.setNotBefore(now + opts.nbfSecondsFromNow);
    return jwt.sign(key.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const b64url = (v: string | Buffer): string => Buffer.from(v).toString('base64url');

/** An unsigned token (`alg: none`) with the right issuer, audience and a future expiry. */
export function unsignedToken(claims: JWTPayload, kid: string): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'none', kid, typ: 'JWT' }));
  const body = b64url(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 3600, ...claims }));
  return `${header}.${body}.`;
}

/** HS/RS confusion: HS256 over the token, keyed with the issuer's public key PEM as the HMAC secret. */
export async function hmacWithPublicKey(claims: JWTPayload, key: IssuerKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', kid: key.kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new TextEncoder().encode(key.publicPem));
}
