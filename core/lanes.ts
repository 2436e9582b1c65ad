/**
 * Runs `work` for each item in lanes by `keyOf`: the items of one key one after another, in their
 * order, and the lanes at once. What must not race (one check's LATE and DOWN, one item's outbox
 * settles) shares a key; everything else overlaps, so its store requests share the embedded
 * store's batches instead of each making a round trip of its own.
 */
export async function inLanes<T, K>(items: readonly T[], keyOf: (item: T) => K, work: (item: T) => Promise<void>): Promise<void> {
  const lanes = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const lane = lanes.get(key);
    if (lane) lane.push(item);
    else lanes.set(key, [item]);
  }
  await Promise.all(
    [...lanes.values()].map(async (lane) => {
      for (const item of lane) await work(item);
    }),
  );
}
