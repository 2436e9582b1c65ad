import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { useParams, useSearchParams, type LoaderFunctionArgs } from 'react-router-dom';
import { api, unwrap, type Schemas } from '../api/client';
import { queryClient } from '../api/queryClient';
import { restoreSession } from '../api/session';

/*
 * The schedule view's one request, kept out of the lazy screen's chunk (and away from Temporal) so
 * that the route can ask for it while that chunk is still loading: the request and the script
 * download overlap instead of following each other.
 */

export type ScheduleTimeline = Schemas['OnCallTimeline'];

/** Two weeks: the timeline's span and the hours report's first range. */
export const TIMELINE_DAYS = 14;

/** A calendar date (`2026-02-30` is not one): a date-only string reads as UTC midnight, so its own ISO form round-trips. */
export const isCalendarDate = (value: string | null): value is string =>
  value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString().slice(0, 10) === value;

/** A calendar date `days` later (or earlier): dates carry no zone, so UTC date arithmetic is exact. */
export function addCalendarDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

/** The timeline of a schedule from a local date (`null`: today in its zone). Under `['schedules']`, so every schedule change refetches it. */
const timelineQuery = (id: number, from: string | null) =>
  queryOptions({
    queryKey: ['schedules', 'timeline', id, from] as const,
    queryFn: () => unwrap(api.GET('/on-call-schedules/{id}/timeline', { params: { path: { id }, query: { days: TIMELINE_DAYS, ...(from === null ? {} : { from }) } } })),
  });

const fromParam = (asked: string | null): string | null => (isCalendarDate(asked) ? asked : null);

/**
 * The route's loader: asks for the timeline as soon as the page's session is back, before React
 * has drawn anything (on a reload, the request follows the cookie refresh directly instead of the
 * first renders). It returns at once; the screen reads the answer from the cache.
 */
export function prefetchRouteTimeline({ params, request }: LoaderFunctionArgs): null {
  const id = Number(params.id);
  if (Number.isInteger(id) && id > 0) {
    const from = fromParam(new URL(request.url).searchParams.get('from'));
    void restoreSession().then((signedIn) => (signedIn ? queryClient.prefetchQuery(timelineQuery(id, from)) : undefined));
  }
  return null;
}

/**
 * The schedule of the route (`/schedules/:id?from=`), by local date (`null`: today in the
 * schedule's zone): the range's edges are local midnights, and only the server knows the zone
 * before the schedule is read. Another fortnight keeps the one on screen until it arrives.
 */
export function useRouteTimeline() {
  const id = Number(useParams().id);
  const [params] = useSearchParams();
  return useQuery({ ...timelineQuery(id, fromParam(params.get('from'))), enabled: Number.isInteger(id) && id > 0, placeholderData: keepPreviousData });
}
