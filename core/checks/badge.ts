import { createHmac, timingSafeEqual } from 'node:crypto';
import { signingSecret } from '../auth/tokens.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import type { CheckItem } from '../store/entities/check.js';
import { readCheckById } from './repository.js';

/**
 * Public status badges. The badge address must neither reveal the ping token (a secret that lets
 * anyone ping the check) nor be made up from a check id (ids are sequential: walking them would
 * list the status of every check of the install). It is `<checkId>-<HMAC(install secret, checkId)>`,
 * both on the redirect (`/checks/<key>/badge`) and on the SVG: stable, needs no storage, and cannot
 * be made up for a check without the install's secret. A bare numeric id answers 404.
 */
const MAC_HEX = 32;
const BADGE_KEY = /^([1-9][0-9]{0,15})-([0-9a-f]{32})$/;
export const BADGE_FILE = /^([1-9][0-9]{0,15}-[0-9a-f]{32})\.svg$/;

/** Synchronous once the install secret is at hand, so a list of checks costs one secret read. */
export const badgeKeyWith = (secret: Uint8Array, checkId: number): string =>
  `${checkId}-${createHmac('sha256', secret).update(`vigil:check-badge:${checkId}`).digest('hex').slice(0, MAC_HEX)}`;

export async function badgeKeyFor(deps: Deps, checkId: number): Promise<string> {
  return badgeKeyWith(await signingSecret(deps.store, deps.clock.now()), checkId);
}

/** The check a badge key names, or 404 for a bare id, a wrong MAC, a deleted or an unknown check. */
export async function checkForBadgeKey(deps: Deps, key: string): Promise<CheckItem> {
  const match = BADGE_KEY.exec(key);
  if (!match || !match[1]) throw notFound('Badge');
  const checkId = Number(match[1]);
  const expected = Buffer.from(await badgeKeyFor(deps, checkId));
  const given = Buffer.from(key);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw notFound('Badge');
  const check = await readCheckById(deps, checkId);
  if (!check) throw notFound('Badge');
  return check;
}

/** The check a badge file (`<key>.svg`) names. */
export async function checkForBadge(deps: Deps, file: string): Promise<CheckItem> {
  const match = BADGE_FILE.exec(file);
  if (!match || !match[1]) throw notFound('Badge');
  return checkForBadgeKey(deps, match[1]);
}

const COLOURS = { OK: '#3fb950', DOWN: '#e5534b', LATE: '#d29922' } as const;
const GREY = '#8b949e';

export const badgeColour = (status: CheckItem['status']): string => (status === 'OK' || status === 'DOWN' || status === 'LATE' ? COLOURS[status] : GREY);

const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch] ?? ch);

// Characters XML 1.0 cannot carry at all: dropped rather than escaped.
const stripInvalidXml = (text: string): string => text.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');

const MAX_LABEL = 40;
const textWidth = (text: string): number => Math.round([...text].length * 6.6 + 12);

/** A two-part flat badge: the owner's label (never the check's name), then its status in the status colour. */
export function renderBadge(name: string, status: CheckItem['status']): string {
  const cleaned = stripInvalidXml(name).trim();
  const label = [...cleaned].length > MAX_LABEL ? `${[...cleaned].slice(0, MAX_LABEL - 1).join('')}…` : cleaned || 'check';
  const message = status.toLowerCase();
  const left = textWidth(label);
  const right = textWidth(message);
  const width = left + right;
  const l = escapeXml(label);
  const m = escapeXml(message);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${l}: ${m}">`,
    `<title>${l}: ${m}</title>`,
    `<rect width="${left}" height="20" fill="#555"/>`,
    `<rect x="${left}" width="${right}" height="20" fill="${badgeColour(status)}"/>`,
    `<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">`,
    `<text x="${left / 2}" y="14">${l}</text>`,
    `<text x="${left + right / 2}" y="14">${m}</text>`,
    `</g></svg>`,
  ].join('');
}
