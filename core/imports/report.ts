/** What an import did (or, dry, would do). Nothing that does not map is dropped silently: it is listed in `skipped`. */
export type ImportReport = {
  source: 'healthchecks' | 'uptime-kuma' | 'grafana-oncall';
  dryRun: boolean;
  created: { kind: string; name: string; id?: number | undefined }[];
  unchanged: { kind: string; name: string; id?: number | undefined }[];
  skipped: { kind: string; name: string; reason: string }[];
};
