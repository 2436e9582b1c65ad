import type { Store } from '../../store/service.js';
import type { PageSnapshot } from './snapshotShape.js';

/**
 * A few seconds of memory in front of the public reads: slug/domain -> page id, page id ->
 * snapshot, and rendered HTML of public pages. A rebuild in this process drops the page's entries
 * at once (locally every write is in this process); another process (an AWS API container) sees a
 * change within `VIEW_CACHE_MS`, well inside the pages' own `max-age=30`. Keyed by store, so two
 * installs in one process (tests) never share entries.
 */
export const VIEW_CACHE_MS = 5_000;
const MAX_ENTRIES = 1_000;

type Entry<T> = { value: T; until: number };
type Caches = { owners: Map<string, Entry<number>>; snapshots: Map<number, Entry<PageSnapshot>>; html: Map<string, Entry<Uint8Array[]>>; reads: Map<string, Entry<unknown>> };
const byStore = new WeakMap<Store, Caches>();

function caches(store: Store): Caches {
  let found = byStore.get(store);
  if (!found) {
    found = { owners: new Map(), snapshots: new Map(), html: new Map(), reads: new Map() };
    byStore.set(store, found);
  }
  return found;
}

function read<K, T>(map: Map<K, Entry<T>>, key: K, nowMs: number): T | undefined {
  const entry = map.get(key);
  if (!entry) return undefined;
  if (entry.until > nowMs) return entry.value;
  map.delete(key);
  return undefined;
}

function write<K, T>(map: Map<K, Entry<T>>, key: K, value: T, nowMs: number): void {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, { value, until: nowMs + VIEW_CACHE_MS });
}

export const cachedOwner = (store: Store, key: string, nowMs: number): number | undefined => read(caches(store).owners, key, nowMs);
export const rememberOwner = (store: Store, key: string, pageId: number, nowMs: number): void => write(caches(store).owners, key, pageId, nowMs);
export const cachedSnapshot = (store: Store, pageId: number, nowMs: number): PageSnapshot | undefined => read(caches(store).snapshots, pageId, nowMs);
export const rememberSnapshot = (store: Store, pageId: number, snapshot: PageSnapshot, nowMs: number): void => write(caches(store).snapshots, pageId, snapshot, nowMs);
export const cachedHtml = (store: Store, key: string, nowMs: number): Uint8Array[] | undefined => read(caches(store).html, key, nowMs);
/** Rendered HTML as the byte runs between its nonce slots, so a view only copies bytes. */
export const rememberHtml = (store: Store, key: string, parts: Uint8Array[], nowMs: number): void => write(caches(store).html, key, parts, nowMs);

/**
 * A public read beyond the snapshot (history, uptime) under `<pageId>:<what>`: an anonymous flood
 * of one page's history costs the store one read per `VIEW_CACHE_MS`, whatever its length.
 */
export async function cachedRead<T>(store: Store, key: `${number}:${string}`, nowMs: number, build: () => Promise<T>): Promise<T> {
  const { reads } = caches(store);
  const hit = read(reads, key, nowMs);
  if (hit !== undefined) return hit as T;
  const value = await build();
  write(reads, key, value, nowMs);
  return value;
}

/** The page changed (or is gone): forget everything about it. */
export function forgetPage(store: Store, pageId: number): void {
  const { owners, snapshots, html, reads } = caches(store);
  snapshots.delete(pageId);
  for (const [key, entry] of owners) if (entry.value === pageId) owners.delete(key);
  for (const key of html.keys()) if (key.startsWith(`${pageId}:`)) html.delete(key);
  for (const key of reads.keys()) if (key.startsWith(`${pageId}:`)) reads.delete(key);
}
