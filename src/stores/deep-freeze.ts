/**
 * Freezes `value` and everything reachable from it, in place, and returns it. Subtrees already frozen are
 * not walked again (a session's `amr` array reused by the codes issued in it).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
