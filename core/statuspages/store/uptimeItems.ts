import type { PutItemCommandInput, UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { marshallItem } from '../../store/flatItems.js';
import type { DayRollup, ObservedState } from '../uptime.js';

/**
 * The uptime rollup's writes of a status change as plain requests, in exactly the form ElectroDB
 * writes them (uptimeItems.test.ts holds the two together): the cursor's put and move, and a
 * day's add. Every DOWN and recovery of a mass outage makes a cursor get, a day's add and a move,
 * and built through ElectroDB's chains they cost about as much CPU as the embedded store's work.
 */

/** A check's uptime cursor key (the uptimeCursor entity's byCheck index). */
export const cursorKey = (checkId: number): { pk: string; sk: string } => ({ pk: `$vigil#checkid_${checkId}`, sk: '$uptimecursor_1' });

/** The first cursor of a check (the entity's create: refused when one exists). */
export function cursorPutInput(table: string, checkId: number, state: ObservedState, since: string): PutItemCommandInput {
  return {
    TableName: table,
    Item: marshallItem({ checkId, state, since, ...cursorKey(checkId), __edb_e__: 'uptimeCursor', __edb_v__: '1' }),
    ConditionExpression: 'attribute_not_exists(#pk) AND attribute_not_exists(#sk)',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
  };
}

/** The cursor moved to `state` since `since`, only from where it was read (the entity's patch). */
export function cursorMoveInput(table: string, checkId: number, previousSince: string, state: ObservedState, since: string): UpdateItemCommandInput {
  return {
    TableName: table,
    Key: marshallItem(cursorKey(checkId)),
    UpdateExpression: 'SET #state = :state, #since = :since, #check = :check, #e = :e, #v = :v',
    ConditionExpression: 'attribute_exists(#pk) AND attribute_exists(#sk) AND #since = :was',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#since': 'since', '#state': 'state', '#check': 'checkId', '#e': '__edb_e__', '#v': '__edb_v__' },
    ExpressionAttributeValues: marshallItem({ ':was': previousSince, ':state': state, ':since': since, ':check': checkId, ':e': 'uptimeCursor', ':v': '1' }),
  };
}

/**
 * One day's share of a closed interval added to its rollup (the uptimeRollup entity's update, an
 * upsert), unless the interval's start is recorded there already; kept until `expiresAt`.
 */
export function dayAddInput(table: string, checkId: number, intervalStart: string, delta: DayRollup, expiresAt: number): UpdateItemCommandInput {
  return {
    TableName: table,
    Key: marshallItem({ pk: `$vigil#checkid_${checkId}`, sk: `$uptimerollup_1#date_${delta.date.toLowerCase()}` }),
    UpdateExpression:
      'SET #expires = :expires, #check = :check, #date = :date, #e = :e, #v = :v ADD #observed :observed, #down :down, #maintenance :maintenance, #maintenanceDown :maintenanceDown, #intervals :intervals',
    ConditionExpression: 'not contains(#intervals, :start)',
    ExpressionAttributeNames: {
      '#intervals': 'intervals',
      '#observed': 'observedSeconds',
      '#down': 'downSeconds',
      '#maintenance': 'maintenanceSeconds',
      '#maintenanceDown': 'maintenanceDownSeconds',
      '#expires': 'expiresAt',
      '#check': 'checkId',
      '#date': 'date',
      '#e': '__edb_e__',
      '#v': '__edb_v__',
    },
    ExpressionAttributeValues: marshallItem({
      ':start': intervalStart,
      ':observed': delta.observedSeconds,
      ':down': delta.downSeconds,
      ':maintenance': delta.maintenanceSeconds,
      ':maintenanceDown': delta.maintenanceDownSeconds,
      ':intervals': new Set([intervalStart]),
      ':expires': expiresAt,
      ':check': checkId,
      ':date': delta.date,
      ':e': 'uptimeRollup',
      ':v': '1',
    }),
  };
}
