/**
 * `/api/chaos/latency/:key`: answers after a delay drawn per request, most fast and a share slow, from a seeded
 * generator, so that a benchmark or a hedged-request test sees the same slow and fast answers on every run.
 *
 * @internal
 */
import { BadRequest } from "./errors.js"
import { type Answer, type Exchange, json, silent, sleep } from "./exchange.js"
import { fractionParam, integerParam, integerSetParam } from "./params.js"
import type { ChaosState } from "./state.js"

const latencyLimits = {
  maxKeyLength: 128,
  maxDelayMillis: 60_000,
  /** The largest seed, 2^31 - 1: a non-negative 32-bit signed integer, which a client in any language can send. */
  maxSeed: 2_147_483_647,
  /** The largest request number `slowEvery` may name. */
  maxRequestNumber: 1_000_000
} as const

/**
 * The header that tells how long the server waited before answering, in milliseconds.
 */
const delayHeader = "x-chaos-delay"

const latencyDefaults = { fastMillis: 5, slowMillis: 500, slowShare: 0.05, seed: 1 } as const

/** What mulberry32 adds to its state at each call: a Weyl sequence, so its n-th state is `seed + n × this`. */
const mulberry32Increment = 0x6d2b79f5

/**
 * The n-th number (1-based) of mulberry32 seeded with `seed`, in [0, 1): what calling the generator n times
 * returns last, computed directly from (seed, n). A request's draw so depends on its number alone, not on the
 * requests of other keys or the order in which concurrent ones were answered.
 *
 * @internal
 */
export const latencyDraw = (seed: number, n: number): number => {
  // Math.imul and `| 0` keep the arithmetic in 32 bits, as the generator's own state is.
  let t = (seed + Math.imul(n, mulberry32Increment)) | 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}

/**
 * Whether request `n` is slow: listed in `slowEvery` when it is given, otherwise its draw falls below `slowShare`
 * (a share of 0 is never slow, 1 always, as draws are below 1).
 *
 * @internal
 */
export const isSlowRequest = (
  n: number,
  choice: { readonly seed: number; readonly slowShare: number; readonly slowEvery: ReadonlySet<number> | undefined }
): boolean =>
  choice.slowEvery === undefined ? latencyDraw(choice.seed, n) < choice.slowShare : choice.slowEvery.has(n)

/**
 * `/api/chaos/latency/:key?fast=5&slow=500&slowShare=0.05&seed=1&slowEvery=1,3`: the n-th request for the key (in
 * its namespace) waits `slow` ms when slow, `fast` ms otherwise, then answers `{ key, n, delayMillis, slow }` with
 * `X-Attempt: n` and `X-Chaos-Delay: ms`. A client that leaves during the wait ends it: the timer is cleared and
 * nothing is written.
 *
 * @internal
 */
export const latencyRoute =
  (state: ChaosState) =>
  async ({ namespace, query, signal }: Exchange, params: Readonly<Record<string, string>>): Promise<Answer> => {
    const key = params.key ?? ""
    if (key.length === 0 || key.length > latencyLimits.maxKeyLength) {
      throw new BadRequest(`latency key must have 1 to ${latencyLimits.maxKeyLength} characters`)
    }
    const delayRange = { min: 0, max: latencyLimits.maxDelayMillis }
    const fastMillis = integerParam(query, "fast", delayRange, latencyDefaults.fastMillis)
    const slowMillis = integerParam(query, "slow", delayRange, latencyDefaults.slowMillis)
    const slowShare = fractionParam(query, "slowShare", latencyDefaults.slowShare)
    const seed = integerParam(query, "seed", { min: 0, max: latencyLimits.maxSeed }, latencyDefaults.seed)
    const slowEvery = integerSetParam(query, "slowEvery", { min: 1, max: latencyLimits.maxRequestNumber })
    // Counted once the request is known to be valid, like a retry key's attempts: a refused one draws nothing.
    const n = state.nextLatencyRequest(namespace, key)
    const slow = isSlowRequest(n, { seed, slowShare, slowEvery })
    const delayMillis = slow ? slowMillis : fastMillis
    if (!(await sleep(delayMillis, signal))) {
      // The client left during the wait: the listener counted it abandoned, and there is nobody to answer.
      return silent
    }
    return json({ key, n, delayMillis, slow }, 200, {
      "x-attempt": String(n),
      [delayHeader]: String(delayMillis)
    })
  }
