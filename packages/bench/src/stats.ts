/** Small statistics over the rounds of a benchmark. */

/** The q-quantile (0..1) of already sorted values, by linear interpolation; NaN when empty. */
export const quantileSorted = (sorted: ArrayLike<number>, q: number): number => {
  const n = sorted.length
  if (n === 0) return Number.NaN
  const position = (n - 1) * Math.min(1, Math.max(0, q))
  const lower = Math.floor(position)
  const upper = Math.min(n - 1, lower + 1)
  const low = sorted[lower] ?? Number.NaN
  const high = sorted[upper] ?? Number.NaN
  return low + (high - low) * (position - lower)
}

export const quantile = (values: ReadonlyArray<number>, q: number): number =>
  quantileSorted(
    [...values].sort((a, b) => a - b),
    q
  )

export const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)

export const mean = (values: ReadonlyArray<number>): number =>
  values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length

/** The median of the ratios a[i] / b[i] of values measured in the same round. */
export const medianRatio = (numerators: ReadonlyArray<number>, denominators: ReadonlyArray<number>): number =>
  median(
    numerators.flatMap((value, index) => {
      const denominator = denominators[index]
      return denominator === undefined || denominator === 0 ? [] : [value / denominator]
    })
  )
