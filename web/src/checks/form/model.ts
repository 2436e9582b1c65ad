import type { Schemas } from '../../api/client';
import type { CheckDetail } from '../api';

export type Severity = 'P1' | 'P2' | 'P3' | 'P4';
export type Region = 'us-east-1' | 'eu-west-1' | 'ap-southeast-1';
export const REGIONS: Region[] = ['us-east-1', 'eu-west-1', 'ap-southeast-1'];
export const SEVERITIES: Severity[] = ['P1', 'P2', 'P3', 'P4'];
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH'] as const;
export type Method = (typeof METHODS)[number];

/** The form as typed: text stays text until submit, so a half-typed number is not lost. */
export type FormValues = {
  kind: 'HEARTBEAT' | 'HTTP';
  name: string;
  projectId: string;
  timing: 'interval' | 'cron';
  intervalSeconds: string;
  schedule: string;
  timezone: string;
  graceSeconds: string;
  lateSeverity: Severity;
  downSeverity: Severity;
  minDurationSeconds: string;
  maxDurationSeconds: string;
  minIntervalSeconds: string;
  muteNotifications: boolean;
  badgeLabel: string;
  slug: string;
  url: string;
  method: Method;
  headers: string;
  regions: Region[];
  timeoutMs: string;
  expectedStatusMin: string;
  expectedStatusMax: string;
  latencyWarnMs: string;
  failAfterConsecutive: string;
  resolveAfterConsecutiveSuccess: string;
  followRedirects: boolean;
};

export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function emptyValues(projectId: number | null): FormValues {
  return {
    kind: 'HEARTBEAT',
    name: '',
    projectId: projectId === null ? '' : String(projectId),
    timing: 'interval',
    intervalSeconds: '3600',
    schedule: '',
    timezone: browserZone(),
    graceSeconds: '60',
    lateSeverity: 'P3',
    downSeverity: 'P1',
    minDurationSeconds: '',
    maxDurationSeconds: '',
    minIntervalSeconds: '',
    muteNotifications: false,
    badgeLabel: '',
    slug: '',
    url: 'https://',
    method: 'GET',
    headers: '',
    regions: [...REGIONS],
    timeoutMs: '8000',
    expectedStatusMin: '200',
    expectedStatusMax: '299',
    latencyWarnMs: '',
    failAfterConsecutive: '1',
    resolveAfterConsecutiveSuccess: '1',
    followRedirects: true,
  };
}

const text = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));

export function valuesOf(check: CheckDetail): FormValues {
  const base = emptyValues(check.projectId);
  const out = check.outbound;
  return {
    ...base,
    kind: check.checkType === 'HTTP' ? 'HTTP' : 'HEARTBEAT',
    name: check.name,
    timing: check.schedule ? 'cron' : 'interval',
    intervalSeconds: text(check.intervalSeconds) || base.intervalSeconds,
    schedule: check.schedule ?? '',
    timezone: check.timezone ?? base.timezone,
    graceSeconds: text(check.graceSeconds),
    lateSeverity: check.lateSeverity,
    downSeverity: check.downSeverity,
    minDurationSeconds: text(check.minDurationSeconds),
    maxDurationSeconds: text(check.maxDurationSeconds),
    minIntervalSeconds: text(check.minIntervalSeconds),
    muteNotifications: check.muteNotifications,
    badgeLabel: check.badgeLabel,
    slug: check.slug ?? '',
    ...(out
      ? {
          url: out.url,
          method: out.method,
          headers: Object.entries(out.customHeaders)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n'),
          regions: out.regions,
          timeoutMs: text(out.timeoutMs),
          expectedStatusMin: text(out.expectedStatusMin),
          expectedStatusMax: text(out.expectedStatusMax),
          latencyWarnMs: text(out.latencyWarnMs),
          failAfterConsecutive: text(out.failAfterConsecutive),
          resolveAfterConsecutiveSuccess: text(out.resolveAfterConsecutiveSuccess),
          followRedirects: out.followRedirects,
        }
      : {}),
  };
}

/** "" is "not set" (null where the API allows clearing); anything else is sent as typed, and the API judges it. */
const num = (value: string): number | null => (value.trim() === '' ? null : Number(value.trim()));
const required = (value: string): number => Number(value.trim());

/** `Name: value` lines as a header object; the error names the first line that is not one. */
export function parseHeaders(value: string): { headers: Record<string, string>; error?: string } {
  const headers: Record<string, string> = {};
  const lines = value
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (const [index, line] of lines.entries()) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { headers, error: `Line ${index + 1} is not “Name: value”` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

export type CheckBody = Schemas['CheckCreate'];

/** The API body for these values; the API validates and answers `details` per field. */
export function toBody(v: FormValues): CheckBody {
  const common = {
    name: v.name.trim(),
    graceSeconds: required(v.graceSeconds),
    lateSeverity: v.lateSeverity,
    downSeverity: v.downSeverity,
    muteNotifications: v.muteNotifications,
    ...(v.projectId === '' ? {} : { projectId: Number(v.projectId) }),
    ...(v.badgeLabel.trim() === '' ? {} : { badgeLabel: v.badgeLabel.trim() }),
  };
  if (v.kind === 'HEARTBEAT') {
    return {
      ...common,
      checkMode: 'INBOUND',
      checkType: 'HEARTBEAT',
      // Emptied, it is null: on an edit that clears the slug (and frees it in the workspace).
      slug: v.slug.trim() === '' ? null : v.slug.trim(),
      ...(v.timing === 'cron'
        ? { schedule: v.schedule.trim(), timezone: v.timezone.trim(), intervalSeconds: null }
        : { intervalSeconds: required(v.intervalSeconds), schedule: null }),
      minDurationSeconds: num(v.minDurationSeconds),
      maxDurationSeconds: num(v.maxDurationSeconds),
      minIntervalSeconds: num(v.minIntervalSeconds),
    };
  }
  return {
    ...common,
    checkMode: 'OUTBOUND',
    checkType: 'HTTP',
    intervalSeconds: required(v.intervalSeconds),
    url: v.url.trim(),
    method: v.method,
    customHeaders: parseHeaders(v.headers).headers,
    regions: v.regions,
    timeoutMs: required(v.timeoutMs),
    expectedStatusMin: required(v.expectedStatusMin),
    expectedStatusMax: required(v.expectedStatusMax),
    latencyWarnMs: num(v.latencyWarnMs),
    failAfterConsecutive: required(v.failAfterConsecutive),
    resolveAfterConsecutiveSuccess: required(v.resolveAfterConsecutiveSuccess),
    followRedirects: v.followRedirects,
  };
}
