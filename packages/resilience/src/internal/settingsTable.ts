// @generated from templates/src/internal/settingsTable.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// What a store keeps per distinct settings (budgets, breakers, concurrency and rate limits).

// How many of distinct settings a store keeps: past it the oldest goes, so that settings made
// anew on every call (an inline `onStateChange`, say) cannot grow it forever.
const maxSettings = 256

/**
 * The table's value for `key`, made and kept on first use; the oldest key goes past 256.
 *
 * @internal
 */
export const remember = <A>(table: Map<string, A>, key: string, make: () => A): A => {
  const known = table.get(key)
  if (known !== undefined) return known
  if (table.size >= maxSettings) {
    const oldest = table.keys().next()
    if (oldest.done !== true) table.delete(oldest.value)
  }
  const made = make()
  table.set(key, made)
  return made
}
