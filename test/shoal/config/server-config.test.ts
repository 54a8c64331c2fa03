import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/shoal/check/load-config.js';

const BASE = `
domains: [{id: sales}]
roles: [{id: admin, capabilities: [admin]}]
`;

describe('server: and audit: config', () => {
  it('loads TLS files, the Host allow-list and CORS with defaults applied', () => {
    const r = checkConfig({
      text: `${BASE}server:
  hostname: Shoal.Example.com
  allowed_hosts: [shoal.example.com, "*.internal"]
  tls: {cert_file: certs/shoal.pem, key_file: certs/shoal.key}
  cors: {origins: ["https://App.example.com"]}
audit: {queue_size: 50}
`,
    });
    expect(r.errors).toEqual([]);
    const s = r.config!.stateful;
    expect(s.server.hostname).toBe('shoal.example.com');
    expect(s.server.allowed_hosts).toEqual(['shoal.example.com', '*.internal']);
    expect(s.server.tls).toEqual({ cert_file: 'certs/shoal.pem', key_file: 'certs/shoal.key' });
    expect(s.server.cors?.origins).toEqual(['https://app.example.com']);
    expect(s.server.cors?.methods).toContain('POST');
    expect(s.server.cors?.credentials).toBe(false);
    expect(s.audit).toEqual({ enabled: true, queue_size: 50, batch_size: 500 });
  });

  it('with no server: key there is no TLS, no CORS and the default Host allow-list', () => {
    const r = checkConfig({ text: BASE });
    expect(r.config!.stateful.server).toEqual({});
  });

  it('refuses a CORS origin with a path, and "*" with credentials, naming the key', () => {
    const path = checkConfig({ text: `${BASE}server: {cors: {origins: ["https://app.example.com/ui"]}}\n` });
    expect(path.ok).toBe(false);
    expect(path.errors[0]?.path).toBe('server.cors.origins[0]');
    const star = checkConfig({ text: `${BASE}server: {cors: {origins: ["*"], credentials: true}}\n` });
    expect(star.ok).toBe(false);
    expect(star.errors[0]?.path).toBe('server.cors.origins');
    expect(star.errors[0]?.message).toContain('credentials');
  });

  it('a TLS block without its key file is an error at server.tls.key_file; a typo gets a hint', () => {
    const r = checkConfig({ text: `${BASE}server: {tls: {cert_file: a.pem}}\n` });
    expect(r.errors.map((e) => e.path)).toEqual(['server.tls.key_file']);
    const typo = checkConfig({ text: `${BASE}server: {alowed_hosts: [x]}\n` });
    expect(typo.errors[0]?.hint).toBe('did you mean "allowed_hosts"?');
  });
});
