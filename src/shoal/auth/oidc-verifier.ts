/**
 * Verify a JWT bearer against the configured issuer (jose): signature by a key of the issuer's
 * JWKS, one of the allowed asymmetric algorithms, `iss`, `aud`, and `exp` (required) / `nbf` with
 * the configured clock skew. Key rotation is honoured both ways: a JWKS URL is re-fetched on an
 * unknown key id and when its cache ages out (`jwks_cache_seconds`); a JWKS file is read at every
 * verification (it is small) and its key set rebuilt when it changed. A key the issuer removed stops verifying once it is re-read.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { OidcConfig } from '../config/auth-config.js';
import { ShoalError } from '../errors.js';

export interface OidcVerifier {
  /** The verified claims; throws AUTH_INVALID (401) for any bad token, AUTH_UNAVAILABLE (503) when the keys can't be read. */
  verify(token: string): Promise<JWTPayload>;
}

/** A JWT has three base64url parts; anything else is refused before jose parses it. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_TOKEN_LENGTH = 16 * 1024;

export function createOidcVerifier(config: OidcConfig, baseDir: string): OidcVerifier {
  const keys = config.jwks_url !== undefined ? remoteKeys(config) : fileKeys(isAbsolute(config.jwks_file!) ? config.jwks_file! : resolve(baseDir, config.jwks_file!));
  return {
    async verify(token) {
      if (token.length > MAX_TOKEN_LENGTH || !JWT_SHAPE.test(token)) throw invalid('the bearer credential is not a JWT');
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: config.issuer,
          audience: [...config.audience],
          algorithms: [...config.algorithms],
          clockTolerance: config.clock_skew_seconds,
          requiredClaims: ['exp'],
        });
        return payload;
      } catch (e) {
        throw classify(e);
      }
    },
  };
}

function remoteKeys(config: OidcConfig): JWTVerifyGetKey {
  return createRemoteJWKSet(new URL(config.jwks_url!), {
    cacheMaxAge: config.jwks_cache_seconds * 1000,
    cooldownDuration: config.jwks_cooldown_seconds * 1000,
    timeoutDuration: 5000,
  });
}

function fileKeys(path: string): JWTVerifyGetKey {
  let text = '';
  let local: ReturnType<typeof createLocalJWKSet> | undefined;
  // a key file is a few KB: read it for every verification and rebuild the set only when it
  // differs, so a withdrawn key stops verifying with the next request (no stat-resolution race)
  const current = (): ReturnType<typeof createLocalJWKSet> => {
    let now: string;
    try {
      now = readFileSync(path, 'utf8');
    } catch (e) {
      throw new ShoalError('AUTH_UNAVAILABLE', `cannot read the JWKS file ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { where: 'auth.oidc.jwks_file', hint: 'check that the file exists and is readable by shoal' });
    }
    if (local && now === text) return local;
    try {
      local = createLocalJWKSet(JSON.parse(now) as JSONWebKeySet);
    } catch {
      throw new ShoalError('AUTH_UNAVAILABLE', `the JWKS file ${path} is not a JSON Web Key Set`, { where: 'auth.oidc.jwks_file', hint: 'write {"keys": [...]} as the issuer publishes it' });
    }
    text = now;
    return local;
  };
  return async (header, token) => current()(header, token);
}

function invalid(message: string): ShoalError {
  return new ShoalError('AUTH_INVALID', message, { hint: 'obtain a fresh token from the issuer and send it as Authorization: Bearer <token>' });
}

/** jose's errors → our codes; the message says what was wrong without echoing claim values. */
function classify(e: unknown): ShoalError {
  if (e instanceof ShoalError) return e;
  if (e instanceof joseErrors.JWTExpired) return invalid('the token has expired');
  if (e instanceof joseErrors.JWTClaimValidationFailed) return invalid(`the token's "${e.claim}" claim is not accepted (${e.reason})`);
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return invalid('the token is signed with an algorithm this server does not accept');
  if (e instanceof joseErrors.JWKSNoMatchingKey) return invalid("the token's key id is not among the issuer's current keys");
  if (e instanceof joseErrors.JWKSMultipleMatchingKeys) return invalid("the token's key id matches several of the issuer's keys");
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return invalid('the token signature does not verify');
  if (e instanceof joseErrors.JWKSTimeout) return new ShoalError('AUTH_UNAVAILABLE', "the issuer's keys could not be fetched in time", { hint: 'retry; check that auth.oidc.jwks_url is reachable from shoal' });
  if (e instanceof joseErrors.JWTInvalid || e instanceof joseErrors.JWSInvalid || e instanceof joseErrors.JOSENotSupported) return invalid('the token is malformed or uses an unsupported feature');
  if (e instanceof joseErrors.JOSEError) {
    // a JWKS fetch that failed (non-200, not JSON) — not the caller's fault
    if (/JSON Web Key Set|JWKS/.test(e.message)) return new ShoalError('AUTH_UNAVAILABLE', "the issuer's keys could not be fetched", { hint: 'check that auth.oidc.jwks_url is reachable from shoal' });
    return invalid('the token does not verify');
  }
  // network errors from fetch (connection refused …)
  return new ShoalError('AUTH_UNAVAILABLE', "the issuer's keys could not be fetched", { hint: 'check that auth.oidc.jwks_url is reachable from shoal', cause: e });
}
