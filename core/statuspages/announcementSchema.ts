import { z } from '@hono/zod-openapi';
import { pageQuery, pageSchema } from '../http/pagination.js';

/**
 * Announcements: one record behind the dashboard (`body`) and the Integration API (`message`);
 * either text is the first timeline entry (spec "Announcement (Integration API)", design Records).
 */

export const ANNOUNCEMENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
export type AnnouncementStatus = (typeof ANNOUNCEMENT_STATUSES)[number];
export const ANNOUNCEMENT_IMPACTS = ['NONE', 'MINOR', 'MAJOR', 'CRITICAL'] as const;
export type AnnouncementImpact = (typeof ANNOUNCEMENT_IMPACTS)[number];
export const ANNOUNCEMENT_LIST_STATUSES = ['open', 'resolved'] as const;

const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const Title = z.string().trim().min(1).max(255);
const Text = z.string().min(1).max(5000);
const Status = z.enum(ANNOUNCEMENT_STATUSES);
const Impact = z.enum(ANNOUNCEMENT_IMPACTS);
/** Offsets allowed, stored as UTC ISO; the verb checks each id belongs to the page (404 otherwise). */
const Instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString());
const ComponentIds = z
  .array(Id)
  .max(1000)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id');

type Schedule = { scheduledFor?: string | undefined; scheduledUntil?: string | undefined };
/** Both or neither, and a window that ends after it starts. */
const scheduleRule = (body: Schedule, ctx: z.RefinementCtx) => {
  const { scheduledFor, scheduledUntil } = body;
  if ((scheduledFor === undefined) !== (scheduledUntil === undefined)) {
    const missing = scheduledFor === undefined ? 'scheduledFor' : 'scheduledUntil';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'scheduledFor and scheduledUntil go together: set both or neither' });
  } else if (scheduledFor !== undefined && scheduledUntil !== undefined && Date.parse(scheduledUntil) <= Date.parse(scheduledFor)) {
    ctx.addIssue({ code: 'custom', path: ['scheduledUntil'], message: 'must be after scheduledFor' });
  }
};

export const AnnouncementCreate = z
  .strictObject({
    title: Title,
    body: Text.describe('Markdown; the first timeline entry'),
    status: Status.optional().describe('Default INVESTIGATING; IDENTIFIED for scheduled maintenance'),
    impact: Impact.optional(),
    componentIds: ComponentIds.default([]),
    scheduledFor: Instant.optional(),
    scheduledUntil: Instant.optional(),
  })
  .superRefine(scheduleRule)
  .openapi('AnnouncementCreate');
export type AnnouncementCreate = z.output<typeof AnnouncementCreate>;

export const AnnouncementCreateV1 = z
  .strictObject({
    title: Title,
    status: Status.optional(),
    impact: Impact.optional(),
    message: z.string().max(5000).optional().describe('Initial update body shown on the page timeline'),
    componentIds: ComponentIds.default([]),
  })
  .openapi('AnnouncementCreateV1');
export type AnnouncementCreateV1 = z.output<typeof AnnouncementCreateV1>;

export const AnnouncementUpdate = z
  .strictObject({
    title: Title.optional(),
    status: Status.optional(),
    impact: Impact.nullable().optional(),
    componentIds: ComponentIds.optional(),
  })
  .openapi('AnnouncementPatch');
export type AnnouncementUpdate = z.output<typeof AnnouncementUpdate>;

/** Dashboard `POST .../updates`: a timeline entry, optionally moving the status. */
/** `POST /status-pages/markdown-preview`: an announcement body as it would be published. */
export const MarkdownPreview = z.strictObject({ body: Text }).openapi('MarkdownPreview');
export const AnnouncementEntryCreate = z.strictObject({ body: Text, status: Status.optional() }).openapi('AnnouncementEntryCreate');
export type AnnouncementEntryCreate = z.output<typeof AnnouncementEntryCreate>;

export const AnnouncementEntryCreateV1 = z.strictObject({ status: Status, message: Text }).openapi('AnnouncementUpdateCreateV1');
export type AnnouncementEntryCreateV1 = z.output<typeof AnnouncementEntryCreateV1>;

const ListStatus = z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(ANNOUNCEMENT_LIST_STATUSES));

export const AnnouncementListQuery = z.object({
  status: ListStatus.optional(),
  take: z.coerce.number().int().min(1).max(100).default(20),
  skip: z.coerce.number().int().min(0).max(100_000).default(0),
});

export type AnnouncementListQuery = z.output<typeof AnnouncementListQuery>;

export const AnnouncementListQueryV1 = pageQuery(20).extend({ status: ListStatus.optional() });
export type AnnouncementListQueryV1 = z.output<typeof AnnouncementListQueryV1>;

export const AnnouncementIdParam = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  announcementId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});

export const TimelineEntry = z
  .object({
    id: z.number().int(),
    status: Status.nullable(),
    body: z.string().describe('Markdown, rendered and sanitised on public surfaces'),
    createdAt: z.string(),
  })
  .openapi('AnnouncementTimelineEntry');
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const AnnouncementEntry = TimelineEntry.extend({ announcementId: z.number().int() }).openapi('AnnouncementUpdate');
export type AnnouncementEntry = z.infer<typeof AnnouncementEntry>;

export const AnnouncementV1 = z
  .object({
    id: z.number().int(),
    publicId: z.string().describe('Lower-case ULID; stable public identifier'),
    statusPageId: z.number().int(),
    title: z.string(),
    status: Status,
    impact: Impact.nullable(),
    resolvedAt: z.string().nullable(),
    createdAt: z.string(),
    componentIds: z.array(z.number().int()),
    updates: z.array(TimelineEntry),
  })
  .openapi('Announcement');
export type AnnouncementV1 = z.infer<typeof AnnouncementV1>;

export const AnnouncementView = AnnouncementV1.extend({
  scheduledFor: z.string().nullable(),
  scheduledUntil: z.string().nullable(),
  body: z.string().nullable().describe('The first timeline entry; null when created without a message'),
}).openapi('AnnouncementDashboard');
export type AnnouncementView = z.infer<typeof AnnouncementView>;

export const AnnouncementPage = pageSchema(AnnouncementV1, 'AnnouncementPage');
