import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** The parts of a request that say what it does, in a plain request's form or ElectroDB's params. */
type Expressions = {
  Key?: unknown;
  Item?: unknown;
  UpdateExpression?: string | undefined;
  ConditionExpression?: string | undefined;
  ExpressionAttributeNames?: Record<string, string> | undefined;
  ExpressionAttributeValues?: Record<string, unknown> | undefined;
};

const shown = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (v instanceof Set ? [...v].sort() : v));

/**
 * A request's update and condition with every placeholder replaced by what it stands for (`#a`
 * by its attribute, `:v` by its value as JSON), so a plain request and ElectroDB's params compare
 * whatever they name their placeholders. `marshalled`: the values are AttributeValues (a request
 * for the plain client).
 */
export function resolvedExpressions(request: Expressions, marshalled: boolean): { update: string | undefined; condition: string | undefined } {
  const names = request.ExpressionAttributeNames ?? {};
  const raw = request.ExpressionAttributeValues ?? {};
  const values: Record<string, unknown> = marshalled ? unmarshall(raw as Record<string, AttributeValue>) : raw;
  const resolve = (expression: string | undefined) =>
    expression?.replace(/[#:][A-Za-z0-9_]+/g, (placeholder) =>
      placeholder.startsWith('#') ? (names[placeholder] ?? placeholder) : placeholder in values ? shown(values[placeholder]) : placeholder,
    );
  return { update: resolve(request.UpdateExpression), condition: resolve(request.ConditionExpression) };
}
