import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createOidcVerifier } from '../../../src/shoal/auth/oidc-verifier.js';
import { checkConfigText } from '../../../src/shoal/check/load-config.js';
import { AUDIENCE, ISSUER, LocalIssuer, makeKey } from './oidc-issuer.js';

describe('an OIDC verifier over a JWKS file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-jwks-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('re-reads the file when it changes: a new key verifies at once, a removed key no longer does', async () => {
    const [k1, k2] = await Promise.all([makeKey('f1'), makeKey('f2')]);
    const write = (...keys: (typeof k1)[]) => writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
    write(k1);
    const auth = checkConfigText(`auth:\n  provider: oidc\n  oidc: {issuer: "${ISSUER}", audience: ${AUDIENCE}, jwks_file: keys.json}\n`, {}).config!.auth!;
    const verifier = createOidcVerifier(auth.oidc!, dir);
    const signer = await LocalIssuer.start(); // only its signer is used here
    try {
      const t1 = await signer.sign(k1, { sub: 'a' });
      const t2 = await signer.sign(k2, { sub: 'b' });
      expect((await verifier.verify(t1)).sub).toBe('a');
      await expect(verifier.verify(t2)).rejects.toMatchObject({ code: 'AUTH_INVALID' });
      write(k1, k2);
      expect((await verifier.verify(t2)).sub).toBe('b');
      write(k2);
      await expect(verifier.verify(t1)).rejects.toMatchObject({ code: 'AUTH_INVALID' });
      expect((await verifier.verify(t2)).sub).toBe('b');
      // a token without exp is refused (exp is required)
      const { SignJWT } = await import('jose');
      const noExp = await new SignJWT({ sub: 'c' }).setProtectedHeader({ alg: 'RS256', kid: 'f2' }).setIssuer(ISSUER).setAudience(AUDIENCE).sign(k2.privateKey);
      await expect(verifier.verify(noExp)).rejects.toMatchObject({ code: 'AUTH_INVALID' });
    } finally {
      await signer.close();
    }
  });

  it('an unreadable key file is 503-class AUTH_UNAVAILABLE, not a pass', async () => {
    const auth = checkConfigText(`auth:\n  provider: oidc\n  oidc: {issuer: "${ISSUER}", audience: ${AUDIENCE}, jwks_file: missing.json}\n`, {}).config!.auth!;
    const k = await makeKey('m');
    const signer = await LocalIssuer.start();
    try {
      await expect(createOidcVerifier(auth.oidc!, dir).verify(await signer.sign(k, { sub: 'a' }))).rejects.toMatchObject({ code: 'AUTH_UNAVAILABLE' });
    } finally {
      await signer.close();
    }
  });
});
