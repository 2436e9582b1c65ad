import { z } from '@hono/zod-openapi';
import { pageQuery } from '../http/pagination.js';
import { DEPENDENCY_CATEGORIES } from '../store/entities/dependency.js';

const name = z.string().trim().min(1).max(255);
const description = z.string().min(1).max(255);
/** Parsed with the WHATWG parser (a prefix check lets `https://` or `http://exa mple` through). */
const isWebUrl = (value: string): boolean => {
  if (!URL.canParse(value)) return false;
  const parsed = new URL(value);
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname.length > 0;
};
const url = z.string().max(2048).refine(isWebUrl, 'must be an http:// or https:// URL');

export const DependencyCreate = z
  .strictObject({
    workspaceId: z.number().int().min(1),
    name,
    description: description.optional(),
    category: z.enum(DEPENDENCY_CATEGORIES).optional(),
    url: url.optional(),
  })
  .openapi('DependencyCreate');

export const DependencyUpdate = z
  .strictObject({
    name: name.optional(),
    description: description.nullable().optional(),
    category: z.enum(DEPENDENCY_CATEGORIES).nullable().optional(),
    url: url.nullable().optional(),
  })
  .openapi('DependencyUpdate');

const upper = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);

export const DependencyListQuery = pageQuery(10).extend({
  workspaceId: z.coerce.number().int().min(1),
  orderBy: z.enum(['name', 'createdAt', 'id']).default('createdAt'),
  order: z.preprocess(upper, z.enum(['ASC', 'DESC'])).default('DESC'),
});

export const Dependency = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    category: z.enum(DEPENDENCY_CATEGORIES).nullable(),
    url: z.string().nullable(),
    source: z.enum(['MANUAL', 'REPORTED']).describe('REPORTED: first seen in a ping payload'),
    status: z.enum(['OK', 'DOWN', 'UNKNOWN']).describe('the status last reported by a ping payload'),
    lastReportedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Dependency');

export const LinkedCheck = z
  .object({
    id: z.number().int(),
    name: z.string(),
    projectId: z.number().int().nullable(),
    status: z.string(),
    checkMode: z.string(),
    link: z.enum(['DEPENDENCY', 'DEPENDENCY_IDS', 'REPORTED']).describe('how the check is linked'),
  })
  .openapi('DependencyLinkedCheck');

export const DependencyDetail = Dependency.extend({
  workspace: z.object({ id: z.number().int(), name: z.string() }),
  checks: z.array(LinkedCheck),
}).openapi('DependencyDetail');
