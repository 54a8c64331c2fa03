import type { FastifyRequest } from 'fastify';
import type { CatalogModel } from '../config/model.js';
import { resolveRole } from '../config/roles.js';
import { ShoalError } from '../errors.js';
import type { Registry } from '../registry/registry.js';

/**
 * The admin check every /admin route makes: the request acts as a role with the `admin`
 * capability (`X-Provisa-Role`), checked against the registry. Returns the catalog it read.
 */
export async function authorizeAdmin(registry: Registry, req: FastifyRequest): Promise<CatalogModel> {
  const header = req.headers['x-provisa-role'];
  const roleId = Array.isArray(header) ? header[0] : header;
  const { catalog } = await registry.snapshot();
  if (!roleId) throw new ShoalError('ROLE_REQUIRED', 'admin requests need an X-Provisa-Role header', { hint: 'act as a role with the admin capability' });
  if (!catalog.roles.some((r) => r.id === roleId)) throw new ShoalError('ROLE_UNKNOWN', `role "${roleId}" is not registered`);
  const role = resolveRole(catalog.roles, roleId);
  if (!role.capabilities.includes('admin')) {
    throw new ShoalError('FORBIDDEN', `role "${roleId}" lacks the admin capability`, { hint: 'act as a role whose capabilities include admin' });
  }
  return catalog;
}
