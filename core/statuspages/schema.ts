import { z } from '@hono/zod-openapi';
import { customDomainProblem, normalizeDomain } from './domain.js';

/**
 * Status pages and components (spec "Status page, component, announcement (dashboard)";
 * docs/guide/status-pages.md). Announcements live in announcementSchema.ts and are re-exported
 * here so callers import one module.
 */

export * from './announcementSchema.js';

export const STATUS_PAGE_VISIBILITIES = ['PUBLIC', 'PASSWORD_PROTECTED', 'PRIVATE'] as const;
export type StatusPageVisibility = (typeof STATUS_PAGE_VISIBILITIES)[number];

/** Public addresses the install serves itself; a page may never take one. */
export const RESERVED_SLUGS = ['api', 'admin', 'status', 'www', 'assets', 'static', 'mcp', 'public'] as const;
export const STATUS_PAGE_SLUG = /^[a-z0-9-]{1,128}$/;

export type SlugShape = 'OK' | 'MALFORMED' | 'RESERVED';
/** `check-slug` answers from this before it asks the lock item; never an error for any string. */
export function slugShape(slug: string): SlugShape {
  if (!STATUS_PAGE_SLUG.test(slug)) return 'MALFORMED';
  return (RESERVED_SLUGS as readonly string[]).includes(slug) ? 'RESERVED' : 'OK';
}

const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const Name = z.string().trim().min(1).max(255);
export const Slug = z
  .string()
  .max(128)
  .regex(STATUS_PAGE_SLUG, 'must be 1-128 lowercase letters, digits or hyphens')
  .refine((slug) => slugShape(slug) !== 'RESERVED', 'is reserved');
/** `#rgb` or `#rrggbb` only: the value lands in a style sheet, so nothing else may pass. */
const HexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be #rgb or #rrggbb');
/** Logos and favicons load under `img-src 'self' https:`, so only https URLs can ever show. */
const ImageUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', 'must be an https:// URL');
const Html = z.string().max(10_000);
/** Stored as a scrypt hash, never returned; the bounds of account passwords. */
const PagePassword = z.string().min(8).max(200);
export const CustomDomain = z
  .string()
  .max(1024)
  .transform(normalizeDomain)
  .superRefine((value, ctx) => {
    const problem = customDomainProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const passwordWhenProtected = (page: { visibility?: StatusPageVisibility | undefined; password?: string | null | undefined }, ctx: z.RefinementCtx) => {
  if (page.visibility === 'PASSWORD_PROTECTED' && page.password == null) {
    ctx.addIssue({ code: 'custom', path: ['password'], message: 'Required when visibility is PASSWORD_PROTECTED' });
  }
};

export const StatusPageCreate = z
  .strictObject({
    workspaceId: Id.optional().describe('Required when the caller belongs to more than one workspace'),
    name: Name,
    slug: Slug,
    visibility: z.enum(STATUS_PAGE_VISIBILITIES).default('PUBLIC'),
    password: PagePassword.optional(),
    logoUrl: ImageUrl.nullable().optional(),
    primaryColor: HexColor.nullable().optional(),
    backgroundColor: HexColor.nullable().optional(),
    faviconUrl: ImageUrl.nullable().optional(),
    showUptimeHistory: z.boolean().default(true),
    uptimeHistoryDays: z.number().int().min(1).max(365).default(90),
    showIncidentHistory: z.boolean().default(true),
    headerHtml: Html.nullable().optional(),
    footerHtml: Html.nullable().optional(),
    enabled: z.boolean().default(true),
    customDomain: CustomDomain.nullable().optional(),
  })
  .superRefine(passwordWhenProtected)
  .openapi('StatusPageCreate');
export type StatusPageCreate = z.output<typeof StatusPageCreate>;

/**
 * A patch that makes a page PASSWORD_PROTECTED without a password is valid here only when the
 * page already has one: `passwordProblem` decides with the stored page. `password: null` is
 * refused; a password goes away with the visibility that needs it.
 */
export const StatusPageUpdate = z
  .strictObject({
    name: Name.optional(),
    slug: Slug.optional(),
    visibility: z.enum(STATUS_PAGE_VISIBILITIES).optional(),
    password: PagePassword.optional(),
    logoUrl: ImageUrl.nullable().optional(),
    primaryColor: HexColor.nullable().optional(),
    backgroundColor: HexColor.nullable().optional(),
    faviconUrl: ImageUrl.nullable().optional(),
    showUptimeHistory: z.boolean().optional(),
    uptimeHistoryDays: z.number().int().min(1).max(365).optional(),
    showIncidentHistory: z.boolean().optional(),
    headerHtml: Html.nullable().optional(),
    footerHtml: Html.nullable().optional(),
    enabled: z.boolean().optional(),
    customDomain: CustomDomain.nullable().optional(),
  })
  .openapi('StatusPageUpdate');
export type StatusPageUpdate = z.output<typeof StatusPageUpdate>;

/** Null when the patched page is consistent; else the 400 message (field `password`). */
export function passwordProblem(current: { visibility: StatusPageVisibility; hasPassword: boolean }, patch: StatusPageUpdate): string | null {
  const visibility = patch.visibility ?? current.visibility;
  if (visibility !== 'PASSWORD_PROTECTED') return null;
  return current.hasPassword || patch.password !== undefined ? null : 'Required when visibility is PASSWORD_PROTECTED';
}

export const CheckSlugQuery = z.object({ slug: z.string().max(1024) });

export const StatusPageIdParam = z.object({ id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const ComponentIdParam = StatusPageIdParam.extend({ componentId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });

// --- Components -----------------------------------------------------------------------------

const ComponentName = Name;
const ComponentDescription = z.string().max(2000);
const GroupName = z.string().trim().min(1).max(128);
const Position = z.number().int().min(0).max(10_000);
export const COMPONENT_TARGET_FIELDS = ['checkId', 'projectId', 'dependencyId', 'integrationId'] as const;
export type ComponentTargetField = (typeof COMPONENT_TARGET_FIELDS)[number];

const targetsGiven = (body: Partial<Record<ComponentTargetField, number | undefined>>): ComponentTargetField[] =>
  COMPONENT_TARGET_FIELDS.filter((field) => body[field] !== undefined);

export const ComponentCreate = z
  .strictObject({
    name: ComponentName,
    description: ComponentDescription.nullable().optional(),
    groupName: GroupName.nullable().optional(),
    position: Position.default(0),
    showUptimeBar: z.boolean().default(true),
    checkId: Id.optional(),
    projectId: Id.optional(),
    dependencyId: Id.optional(),
    integrationId: Id.optional().describe("Follows the integration's open incidents: P1 a major outage, P2 a partial one, P3/P4 degraded"),
  })
  .superRefine((body, ctx) => {
    if (targetsGiven(body).length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['checkId'], message: 'Exactly one of checkId, projectId, dependencyId, integrationId is required' });
    }
  })
  .openapi('StatusPageComponentCreate');
export type ComponentCreate = z.output<typeof ComponentCreate>;

/** Giving one target field replaces the target (the others become null); two at once is a 400. */
export const ComponentUpdate = z
  .strictObject({
    name: ComponentName.optional(),
    description: ComponentDescription.nullable().optional(),
    groupName: GroupName.nullable().optional(),
    position: Position.optional(),
    showUptimeBar: z.boolean().optional(),
    checkId: Id.optional(),
    projectId: Id.optional(),
    dependencyId: Id.optional(),
    integrationId: Id.optional(),
  })
  .superRefine((body, ctx) => {
    if (targetsGiven(body).length > 1) {
      ctx.addIssue({ code: 'custom', path: ['checkId'], message: 'At most one of checkId, projectId, dependencyId, integrationId' });
    }
  })
  .openapi('StatusPageComponentUpdate');
export type ComponentUpdate = z.output<typeof ComponentUpdate>;

/** The complete list, in the new order; the verb refuses missing, repeated or foreign ids (400). */
export const ComponentReorder = z
  .strictObject({ componentIds: z.array(Id).max(1000) })
  .refine((body) => new Set(body.componentIds).size === body.componentIds.length, { path: ['componentIds'], message: 'must not repeat an id' })
  .openapi('StatusPageComponentReorder');

/** The reorder rule on its own: the page's ids, each exactly once. */
export function reorderProblem(existing: readonly number[], requested: readonly number[]): string | null {
  if (new Set(requested).size !== requested.length) return 'componentIds must not repeat an id';
  const known = new Set(existing);
  if (requested.some((id) => !known.has(id))) return 'componentIds contains an id that is not a component of this page';
  if (requested.length !== known.size) return 'componentIds must list every component of the page';
  return null;
}

export const Component = z
  .object({
    id: z.number().int(),
    statusPageId: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    groupName: z.string().nullable(),
    position: z.number().int(),
    showUptimeBar: z.boolean(),
    checkId: z.number().int().nullable(),
    projectId: z.number().int().nullable(),
    dependencyId: z.number().int().nullable(),
    integrationId: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('StatusPageComponent');
export type Component = z.infer<typeof Component>;

export const CustomDomainVerification = z
  .object({
    txtName: z.string().describe('The TXT record to publish: `_vigil-challenge.<domain>`'),
    txtValue: z.string().nullable().describe('Its value, `vigil-verify=<token>` (a new token with every domain saved)'),
    cnameTarget: z.string().describe('Where the domain’s CNAME must point'),
    status: z.enum(['PENDING', 'VERIFIED']).describe('PENDING: saved, not served, nothing locked; VERIFIED: served, and held by this page alone'),
    checkedAt: z.string().nullable().describe('The last DNS look (verification or the daily re-check)'),
    expiresAt: z.string().nullable().describe('When an unverified claim lapses (7 days after it was saved or detached)'),
  })
  .openapi('CustomDomainVerification');

export const StatusPage = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    slug: z.string(),
    visibility: z.enum(STATUS_PAGE_VISIBILITIES),
    logoUrl: z.string().nullable(),
    primaryColor: z.string().nullable(),
    backgroundColor: z.string().nullable(),
    faviconUrl: z.string().nullable(),
    showUptimeHistory: z.boolean(),
    uptimeHistoryDays: z.number().int(),
    showIncidentHistory: z.boolean(),
    headerHtml: z.string().nullable().describe('Sanitised on save and again on render'),
    footerHtml: z.string().nullable().describe('Sanitised on save and again on render'),
    enabled: z.boolean(),
    customDomain: z.string().nullable(),
    customDomainVerifiedAt: z.string().nullable(),
    customDomainVerification: CustomDomainVerification.nullable().describe('With a custom domain: the DNS records that verify it (null without one)'),
    hasPassword: z.boolean().describe('The password itself is never returned'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('StatusPage');
export type StatusPage = z.infer<typeof StatusPage>;

export const StatusPageDetail = StatusPage.extend({ components: z.array(Component) }).openapi('StatusPageDetail');
export type StatusPageDetail = z.infer<typeof StatusPageDetail>;
