/**
 * The table keys of a check and of its ref, as the check entity's `byToken` index and the ref
 * entity's `byId` index write them (core/store/checkTokens.test.ts and core/signals/rawItems.test.ts
 * hold them to ElectroDB's): for the plain requests of the ping path, the sweep and the reads by id.
 */

/** A check's table key, from its token. */
export const checkKey = (token: string): { pk: string; sk: string } => ({ pk: `$vigil#token_${token.toLowerCase()}`, sk: '$check_1' });

/** A check ref's table key, from the check's id. */
export const checkRefKey = (checkId: number): { pk: string; sk: string } => ({ pk: `$vigil#checkid_${checkId}`, sk: '$checkref_1' });
