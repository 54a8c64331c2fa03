import { z } from 'zod';
import { MAX_SELECTOR_LENGTH } from '../kernel/select.js';

// The request shapes of the typed HTTP API (docs/tik-sync.md): the routes validate with these,
// and GET /api/openapi.json is generated from them, so the description cannot drift from the check.

export const text = (max: number) => z.string().min(1).max(max);
export const ACTOR = z.string().min(1).max(256).optional();
export const TICKET = z.string().min(1).max(64);
/** The largest attachment `PUT /api/tickets/:ticket/artifacts/*` accepts. */
export const ATTACH_BODY_LIMIT = 16 * 1024 * 1024;
export const ATTACH_LIMIT_TEXT = `the file's bytes, any content type, at most ${ATTACH_BODY_LIMIT / (1024 * 1024)} MiB`;
/** The artifact path of an upload (the rest of the URL). */
export const ATTACH_PATH = text(1024);
/** The typed write bodies; `actor` is who to write as (checked against the caller's grant). */
export const BODIES = {
  new: z.object({ process: text(255), title: z.string().max(4096).optional(), actor: ACTOR }).strict(),
  set: z.object({ facts: z.array(z.object({ key: text(1024), value: z.string().max(65536) }).strict()).min(1).max(256), actor: ACTOR }).strict(),
  retract: z.object({ key: text(1024), reason: z.string().max(4096).optional(), actor: ACTOR }).strict(),
  dispute: z.object({ key: text(1024), reason: z.string().max(4096).optional(), withdraw: z.boolean().optional(), actor: ACTOR }).strict(),
  comment: z.object({ text: text(65536), actor: ACTOR }).strict(),
  attest: z.object({ claim: text(4096), body: z.string().max(65536).optional(), actor: ACTOR }).strict(),
  legacy: z.object({ args: z.array(z.string().max(65536)).max(4096), actor: ACTOR }).strict(),
} as const;
export const READ_QUERY = z
  .object({
    at: z.string().max(64).optional(),
    actor: z.string().min(1).max(256).optional(),
    role: z.string().min(1).max(256).optional(),
    all: z.string().max(8).optional(),
    /** A selector of `tik ls --where` (docs/tik.md "Selecting tickets"). */
    where: z.string().max(MAX_SELECTOR_LENGTH).optional(),
  })
  .strict();

