import type { CheckType } from './api';

export const KIND_LABEL: Record<CheckType, string> = { HEARTBEAT: 'Heartbeat', HTTP: 'HTTP', DNS: 'DNS', TCP: 'TCP', SSL: 'SSL' };
export const KIND_OPTIONS = Object.entries(KIND_LABEL).map(([value, label]) => ({ value: value as CheckType, label }));
