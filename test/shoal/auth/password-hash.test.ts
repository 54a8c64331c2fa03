import { describe, expect, it } from 'vitest';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../../../src/shoal/auth/password-hash.js';
import { isWellFormedToken, mintToken, tokenSha256 } from '../../../src/shoal/auth/access-token.js';

const cheap = { N: 1024, r: 8, p: 1 };

describe('password hashes and token secrets', () => {
  it('a hash verifies its password only, carries its parameters, and is salted per call', async () => {
    const a = await hashPassword('correct horse', cheap);
    const b = await hashPassword('correct horse', cheap);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsE', a)).toBe(false);
  });

  it('a malformed or absurd-cost hash never verifies (and never throws)', async () => {
    for (const h of ['', 'bcrypt$x', 'scrypt$3$8$1$AAAAAAAAAAA=$AAAA', `scrypt$${2 ** 24}$8$1$AAAAAAAAAAAAAAAAAAAAAA==$${Buffer.alloc(32).toString('base64')}`]) {
      expect(await verifyPassword('x', h)).toBe(false);
    }
    expect(await verifyPassword('', DUMMY_HASH)).toBe(false);
  });

  it('a minted token has the documented shape; only its hash identifies it', () => {
    const t = mintToken();
    expect(isWellFormedToken(t.secret)).toBe(true);
    expect(t.secretSha256).toBe(tokenSha256(t.secret));
    expect(t.secretSha256).not.toContain(t.secret.slice(10));
    expect(mintToken().secret).not.toBe(t.secret);
    expect(isWellFormedToken(`${t.secret}x`)).toBe(false);
  });
});
