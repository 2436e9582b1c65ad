/**
 * What one process remembers per store as a hint: never the truth, since each caller checks what
 * it finds under a remembered key and reads as before when it does not hold. Cleared whole at
 * `bound` entries, so a process's memory stays bounded whatever it has seen.
 */
export function storeMemo<K, V>(bound: number) {
  const byStore = new WeakMap<object, Map<K, V>>();
  const of = (store: object): Map<K, V> => {
    let memo = byStore.get(store);
    if (!memo) {
      memo = new Map();
      byStore.set(store, memo);
    }
    return memo;
  };
  return {
    get: (store: object, key: K): V | undefined => of(store).get(key),
    set: (store: object, key: K, value: V): void => {
      const memo = of(store);
      if (memo.size >= bound) memo.clear();
      memo.set(key, value);
    },
    delete: (store: object, key: K): void => {
      of(store).delete(key);
    },
  };
}
