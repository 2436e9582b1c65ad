import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshallItem, unmarshallItem } from './flatItems.js';
import type { Store } from './service.js';

/**
 * Items of an entity read as plain requests, returned as the entity's get returns them: the item
 * as the table stores it, keys and identity dropped, each table field under its attribute's name
 * (the outbox index fields `gsi4pk`/`gsi4sk` as `outboxDue`/`outboxDueAt`), and nothing for an
 * item another entity (or version) wrote. For entities with no attribute getters, hidden
 * attributes or sets (the incident, its episode, the uptime cursor); each caller's test holds its
 * entity to ElectroDB's own parse. Building a get through ElectroDB's chain and formatting its
 * answer cost about as much CPU again as the embedded store's own read.
 */

type EntityModel = { schema: { model: { entity: string; version: string }; attributes: Record<string, unknown> } };
type Reading = { entity: string; version: string; names: Map<string, string> };

/** Worked out once per entity schema: which table field holds which attribute. */
const readings = new WeakMap<object, Reading>();

function readingOf({ schema }: EntityModel): Reading {
  let reading = readings.get(schema);
  if (!reading) {
    const names = new Map<string, string>();
    for (const [name, attribute] of Object.entries(schema.attributes)) {
      const field = typeof attribute === 'object' && attribute !== null && 'field' in attribute && typeof attribute.field === 'string' ? attribute.field : name;
      names.set(field, name);
    }
    reading = { entity: schema.model.entity, version: schema.model.version, names };
    readings.set(schema, reading);
  }
  return reading;
}

/** The entity's item from the item as stored (unmarshalled), or undefined when another entity owns it. */
export function storedItemOf<T>(entity: EntityModel, stored: Record<string, unknown>): T | undefined {
  const { entity: name, version, names } = readingOf(entity);
  // As ElectroDB's get: an item it did not write under this entity and version is not this entity's.
  if (stored.__edb_e__ !== name || stored.__edb_v__ !== version) return undefined;
  const item: Record<string, unknown> = {};
  for (const field in stored) {
    const attribute = names.get(field);
    if (attribute !== undefined) item[attribute] = stored[field];
  }
  // The entity's own item type: its test holds the shape to ElectroDB's parse of the same item.
  return item as T;
}

/** A consistent GetItem of `key` through the plain client, as the entity's item. */
export async function getStoredItem<T>(store: Pick<Store, 'hot' | 'table'>, entity: EntityModel, key: Record<string, string>): Promise<T | undefined> {
  const stored = await getStored(store, key, { consistent: true });
  return stored ? storedItemOf<T>(entity, stored) : undefined;
}

/** The item under `key` as stored (unmarshalled, as the document client returns it), through the plain client. */
export async function getStored(store: Pick<Store, 'hot' | 'table'>, key: Record<string, string>, options: { consistent: boolean }): Promise<Record<string, unknown> | undefined> {
  const read = await store.hot.send(new GetItemCommand({ TableName: store.table, Key: marshallItem(key), ConsistentRead: options.consistent }));
  return read.Item ? unmarshallItem(read.Item) : undefined;
}
