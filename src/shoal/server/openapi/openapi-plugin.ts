/**
 * `GET /openapi.json`: the OpenAPI document of every route this app registered (openapi-document.ts).
 * Routes are collected by an onRoute hook, so the plugin must be registered before the routes it
 * describes; the document is built on first request, once every plugin has registered.
 */
import type { FastifyInstance } from 'fastify';
import { appWide } from '../app-wide.js';
import { type RegisteredRoute, openApiDocument } from './openapi-document.js';

export const OPENAPI_PATH = '/openapi.json';

export function openApiPlugin(version: string) {
  return appWide(async function plugin(app: FastifyInstance): Promise<void> {
    const routes: RegisteredRoute[] = [];
    app.addHook('onRoute', (r) => {
      for (const method of Array.isArray(r.method) ? r.method : [r.method]) routes.push({ method: String(method).toUpperCase(), url: r.url, ...(r.schema ? { schema: r.schema as RegisteredRoute['schema'] & object } : {}) });
    });
    let document: unknown;
    app.get(OPENAPI_PATH, async () => (document ??= openApiDocument(routes, version).document));
  });
}
