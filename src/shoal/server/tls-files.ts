import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { TlsConfig } from '../config/server-config.js';
import { ShoalError } from '../errors.js';

/** The PEM certificate chain and private key `shoal serve` listens with. */
export interface TlsMaterial {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** PEM files are small; a larger file is not what the key names. */
const MAX_PEM_BYTES = 1024 * 1024;

/**
 * Read `server.tls` at start (relative paths are relative to the config file). An unreadable
 * file, a file that is not PEM, or a key that does not belong to the certificate is a
 * CONFIG_TLS error naming the key, so `serve` never starts half-configured or in plain text.
 */
export function readTlsFiles(tls: TlsConfig, baseDir: string): TlsMaterial {
  const read = (key: 'cert_file' | 'key_file', label: string): Buffer => {
    const path = isAbsolute(tls[key]) ? tls[key] : resolve(baseDir, tls[key]);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      throw new ShoalError('CONFIG_TLS', `server.tls.${key}: cannot read ${label} file ${path} (${code})`, {
        where: `server.tls.${key}`,
        hint: `point server.tls.${key} at a readable PEM file (relative paths are relative to the config file)`,
      });
    }
    if (bytes.length > MAX_PEM_BYTES || !bytes.toString('latin1').includes('-----BEGIN ')) {
      throw new ShoalError('CONFIG_TLS', `server.tls.${key}: ${path} is not a PEM ${label} file`, {
        where: `server.tls.${key}`,
        hint: 'use PEM text (-----BEGIN …-----), e.g. as written by openssl',
      });
    }
    return bytes;
  };
  const material = { cert: read('cert_file', 'certificate'), key: read('key_file', 'private key') };
  try {
    createSecureContext(material);
  } catch (e) {
    throw new ShoalError('CONFIG_TLS', `server.tls: the certificate and private key cannot be used together (${(e as Error).message})`, {
      where: 'server.tls',
      hint: 'server.tls.key_file must hold the private key of the certificate in server.tls.cert_file',
    });
  }
  return material;
}
