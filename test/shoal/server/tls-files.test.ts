import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/shoal/server/app.js';
import type { QueryService } from '../../../src/shoal/server/query-service.js';
import { noAuth } from './no-auth.js';
import { readTlsFiles } from '../../../src/shoal/server/tls-files.js';
import { selfSignedCert } from '../../support/self-signed-cert.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pair = selfSignedCert(dir);
const other = selfSignedCert(dir, 'other');

const service: QueryService = {
  auth: noAuth(),
  isReady: () => true,
  health: async () => ({ status: 'ok', dependencies: {} }),
  async query() {
    return { columns: [], batches: (async function* () {})() };
  },
};

describe('server.tls files', () => {
  it('reads a PEM certificate and key (relative paths against the config directory)', () => {
    const m = readTlsFiles({ cert_file: 'shoal.crt', key_file: pair.keyFile }, dir);
    expect(m.cert.equals(pair.cert)).toBe(true);
    expect(m.key.equals(pair.key)).toBe(true);
  });

  it('an unreadable file is CONFIG_TLS naming the key and the path', () => {
    const err = (() => {
      try {
        readTlsFiles({ cert_file: pair.certFile, key_file: 'missing.key' }, dir);
      } catch (e) {
        return e as { code: string; message: string; where: string };
      }
      throw new Error('expected CONFIG_TLS');
    })();
    expect(err.code).toBe('CONFIG_TLS');
    expect(err.where).toBe('server.tls.key_file');
    expect(err.message).toContain(join(dir, 'missing.key'));
    expect(err.message).toContain('ENOENT');
  });

  it('a file that is not PEM, and a key of another certificate, are refused', () => {
    writeFileSync(join(dir, 'junk.crt'), 'not a certificate');
    expect(() => readTlsFiles({ cert_file: 'junk.crt', key_file: pair.keyFile }, dir)).toThrow(/server\.tls\.cert_file: .* is not a PEM certificate/);
    expect(() => readTlsFiles({ cert_file: pair.certFile, key_file: other.keyFile }, dir)).toThrow(/cannot be used together/);
  });

  it('an app built with TLS answers HTTPS with that certificate and refuses plain HTTP on its port', async () => {
    const app = await buildApp({ service, tls: readTlsFiles({ cert_file: pair.certFile, key_file: pair.keyFile }, dir) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    try {
      const body = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port, path: '/live', ca: pair.cert, servername: 'localhost' }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toEqual({ status: 200, text: '{"status":"ok"}' });
      const plain = await new Promise<string>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/live' }, (res) => resolve(`answered ${res.statusCode}`));
        req.on('error', (e) => resolve(`refused: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
        req.end();
      });
      expect(plain).toMatch(/^refused: /);
    } finally {
      await app.close();
    }
  });
});
