/**
 * `shoal serve` with `server.tls`: a real process answers HTTPS with the configured certificate,
 * refuses plain HTTP on the same port, and refuses to start at all when a file is unreadable.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distBin, httpsStatus, startServer, type ServerProcess } from '../../../support/processes.js';
import { selfSignedCert } from '../../../support/self-signed-cert.js';
import { freePort } from '../../../support/services.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-tls-serve-'));
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
  rmSync(dir, { recursive: true, force: true });
});

const config = (tls: string) => `
auth: {provider: none}
server:
  tls: ${tls}
domains: [{id: d}]
roles: [{id: admin, capabilities: [admin, query_development]}]
`;

describe('shoal serve over TLS', () => {
  it('answers HTTPS with the configured certificate and refuses plain HTTP on that port', async () => {
    const cert = selfSignedCert(dir);
    writeFileSync(join(dir, 'shoal.yaml'), config('{cert_file: shoal.crt, key_file: shoal.key}'));
    const port = await freePort();
    const server = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port)], { cwd: dir, port, tlsCa: cert.cert });
    servers.push(server);
    expect(server.url).toBe(`https://127.0.0.1:${port}`);
    expect(await httpsStatus(`${server.url}/live`, cert.cert)).toBe(200);
    const plain = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/live' }, (res) => resolve(`answered ${res.statusCode}`));
      req.on('error', (e) => resolve(`refused: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
      req.end();
    });
    expect(plain).toMatch(/^refused: /);
    // a client that does not trust the certificate is refused by its own TLS check
    await expect(httpsStatus(`${server.url}/live`, selfSignedCert(dir, 'stranger').cert)).rejects.toThrow();
  });

  it('does not start when a TLS file is unreadable, and names the key', async () => {
    writeFileSync(join(dir, 'bad.yaml'), config('{cert_file: shoal.crt, key_file: no-such.key}'));
    const r = spawnSync(process.execPath, [distBin('shoal'), 'serve', '--config', join(dir, 'bad.yaml'), '--port', String(await freePort())], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('CONFIG_TLS');
    expect(r.stderr).toContain('server.tls.key_file');
    expect(r.stderr).toContain('no-such.key');
    expect(r.stderr).not.toContain('    at ');
  });
});
