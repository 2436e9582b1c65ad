import { forbidden } from '../http/errors.js';
import type { Role } from '../store/entities/membership.js';

export type { Role } from '../store/entities/membership.js';

const rank: Record<Role, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2, OWNER: 3 };

export const roleAtLeast = (role: Role, minimum: Role): boolean => rank[role] >= rank[minimum];

export function requireRole(role: Role, minimum: Role): void {
  if (!roleAtLeast(role, minimum)) throw forbidden(`This action needs the ${minimum} role or higher`);
}
