import { QueryCommand, type AttributeValue, type PutItemCommandInput, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import type { IncidentEventItem } from '../store/entities/incidentEvent.js';
import { marshallItem, unmarshallItem } from '../store/flatItems.js';
import type { Store } from '../store/service.js';
import { storedItemOf } from '../store/storedItems.js';

/**
 * The timeline's hot requests as plain ones, in the form ElectroDB's incidentEvent entity makes
 * them (timelineItems.test.ts holds the two together): an entry's put, an alert claim's confirm,
 * and the timeline's query. A flip writes four or five entries and confirms two claims, and a
 * raise lists the timeline; built through ElectroDB's chains, each cost about as much CPU again as
 * the store's own work. The rare requests (a claim taken over or released, an entry read alone)
 * stay on the entity.
 */

const IDENTITY = { __edb_e__: 'incidentEvent', __edb_v__: '1' } as const;

/** An entry's table key (the entity's `byIncident` index). */
export const incidentEventKey = (incidentId: number, eventKey: string): { pk: string; sk: string } => ({
  pk: `$vigil#incidentid_${incidentId}`,
  sk: `$incidentevent_1#eventkey_${eventKey.toLowerCase()}`,
});

/** The entity's `create`: the entry with its key and identity, once (refused where the key exists). */
export function incidentEventPutInput(table: string, event: IncidentEventItem): PutItemCommandInput {
  return {
    TableName: table,
    Item: marshallItem(Object.assign({}, event, incidentEventKey(event.incidentId, event.eventKey), IDENTITY)),
    ConditionExpression: 'attribute_not_exists(#pk) AND attribute_not_exists(#sk)',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
  };
}

/**
 * The entity's patch removing an ALERT_SENT entry's claim while `owner` holds it. The patch also
 * set the entry's id and identity to the values it already holds; this leaves them.
 */
export function claimConfirmInput(table: string, incidentId: number, eventKey: string, owner: string): UpdateItemCommandInput {
  return {
    TableName: table,
    Key: marshallItem(incidentEventKey(incidentId, eventKey)),
    UpdateExpression: 'REMOVE #claim',
    ConditionExpression: 'attribute_exists(#pk) AND attribute_exists(#sk) AND #claim = :claim0',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#claim': 'claim' },
    ExpressionAttributeValues: { ':claim0': { S: owner } },
  };
}

/** The entity's `query.byIncident({ incidentId }).go({ pages: 'all' })`: every entry of the incident, in key order. */
export async function queryIncidentEvents(store: Pick<Store, 'hot' | 'table' | 'entities'>, incidentId: number): Promise<IncidentEventItem[]> {
  const { pk, sk } = incidentEventKey(incidentId, '');
  const events: IncidentEventItem[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await store.hot.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: '#pk = :pk and begins_with(#sk1, :sk1)',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk1': 'sk' },
        ExpressionAttributeValues: { ':pk': { S: pk }, ':sk1': { S: sk } },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      // As the entity's query: only the items it owns, with only its attributes.
      const event = storedItemOf<IncidentEventItem>(store.entities.incidentEvent, unmarshallItem(item));
      if (event) events.push(event);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return events;
}
