/**
 * Positions of repeated keys in a list: for each later occurrence, its index and the index of the
 * first one. Items whose key is undefined are skipped. Used by every "must be unique" rule.
 */
export function findDuplicates<T>(
  items: readonly T[],
  keyOf: (item: T) => string | undefined,
): { index: number; firstIndex: number; key: string }[] {
  const first = new Map<string, number>();
  const duplicates: { index: number; firstIndex: number; key: string }[] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    if (key === undefined) return;
    const firstIndex = first.get(key);
    if (firstIndex === undefined) first.set(key, index);
    else duplicates.push({ index, firstIndex, key });
  });
  return duplicates;
}
