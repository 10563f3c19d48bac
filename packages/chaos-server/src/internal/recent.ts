/**
 * Sets `key` as the most recently used entry of `map` (a Map iterates in insertion order, so deleting before
 * setting keeps the oldest use first), then forgets the least recently used entries beyond `max`.
 *
 * @internal
 */
export const setRecent = <V>(map: Map<string, V>, key: string, value: V, max: number): void => {
  map.delete(key)
  map.set(key, value)
  while (map.size > max) {
    const leastRecentlyUsed = map.keys().next()
    if (leastRecentlyUsed.done === true) break
    map.delete(leastRecentlyUsed.value)
  }
}
