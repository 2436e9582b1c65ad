import { z } from '@hono/zod-openapi';

export const MAX_LIMIT = 100;

/** `page`/`limit` query parameters; the default limit differs per list (spec: checks 10, incidents 20 ...). */
export const pageQuery = (defaultLimit: number) =>
  z.object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(defaultLimit),
  });

export type Page<T> = {
  items: T[];
  total: number;
  page: number;
  itemCount: number;
  pageCount: number;
  limit: number;
};

/** The spec's envelope over an already filtered and ordered list. */
export function paginate<T>(all: readonly T[], page: number, limit: number): Page<T> {
  const items = all.slice((page - 1) * limit, page * limit);
  return envelope(items, all.length, page, limit);
}

export function envelope<T>(items: T[], total: number, page: number, limit: number): Page<T> {
  return { items, total, page, itemCount: items.length, pageCount: Math.ceil(total / limit), limit };
}

export const pageSchema = <T extends z.ZodType>(item: T, name: string) =>
  z
    .object({
      items: z.array(item),
      total: z.number().int(),
      page: z.number().int(),
      itemCount: z.number().int(),
      pageCount: z.number().int(),
      limit: z.number().int(),
    })
    .openapi(name);
