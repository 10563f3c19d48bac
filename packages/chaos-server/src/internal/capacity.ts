/**
 * `/api/chaos/capacity`: a server that serves `capacity` requests at once at its base latency and slows down
 * beyond, as a server of that many workers sharing them out would, until it sheds with `503`. The capacity is the
 * server's (not per namespace) and changes mid-run through `POST /__capacity?limit=N`, so that a client's
 * adaptive limit can be watched following it.
 *
 * @internal
 */
import { type Answer, type Exchange, json, silent, sleep } from "./exchange.js"
import { integerParam } from "./params.js"
import type { ChaosState } from "./state.js"

const capacityDefaults = { limit: 64, baseMillis: 20, shedAt: 2, maxLimit: 100_000 } as const

/** What the capacity route counted since start or reset (see `Stats.capacity`). */
interface CapacityStats {
  readonly limit: number
  readonly inFlight: number
  readonly peakInFlight: number
  readonly requests: number
  readonly served: number
  readonly overloaded: number
}

/** @internal */
export interface CapacityState {
  /** Counts an arriving request; answers how many the route now holds, itself included. */
  readonly arrive: () => number
  /** The request left: answered, shed, or its client gone. */
  readonly leave: (outcome: "served" | "overloaded" | "abandoned") => void
  readonly limit: () => number
  readonly setLimit: (limit: number) => void
  /** Counters to 0, the peak to what is held now, the capacity to its default. */
  readonly reset: () => void
  readonly snapshot: () => CapacityStats
}

/** @internal */
export const makeCapacityState = (): CapacityState => {
  let limit: number = capacityDefaults.limit
  let inFlight = 0
  let peakInFlight = 0
  let requests = 0
  let served = 0
  let overloaded = 0
  return {
    arrive: () => {
      requests++
      inFlight++
      peakInFlight = Math.max(peakInFlight, inFlight)
      return inFlight
    },
    leave: (outcome) => {
      inFlight--
      if (outcome === "served") served++
      else if (outcome === "overloaded") overloaded++
    },
    limit: () => limit,
    setLimit: (next) => {
      limit = next
    },
    reset: () => {
      limit = capacityDefaults.limit
      peakInFlight = inFlight
      requests = 0
      served = 0
      overloaded = 0
    },
    snapshot: () => ({ limit, inFlight, peakInFlight, requests, served, overloaded })
  }
}

/** The header that tells this route's shedding from other 503s, and its value. */
const overloadHeader = { "x-chaos-overload": "capacity" } as const

/**
 * `/api/chaos/capacity?base=20&shedAt=2`: with `c` requests held (this one included) and capacity `N`, waits
 * `base × max(1, c / N)` ms, then answers `200` `{ capacity, concurrent, delayMillis }` with `X-Chaos-Delay`;
 * beyond `shedAt × N` held, answers `503` at once with `X-Chaos-Overload: capacity`.
 *
 * @internal
 */
export const capacityRoute =
  (state: ChaosState) =>
  async ({ query, signal }: Exchange): Promise<Answer> => {
    const baseMillis = integerParam(query, "base", { min: 0, max: 60_000 }, capacityDefaults.baseMillis)
    const shedAt = integerParam(query, "shedAt", { min: 1, max: 100 }, capacityDefaults.shedAt)
    const capacity = state.capacity.limit()
    const concurrent = state.capacity.arrive()
    if (concurrent > shedAt * capacity) {
      state.capacity.leave("overloaded")
      return json(
        {
          status: 503,
          error: "Service Unavailable",
          message: `${concurrent} requests at once: over ${shedAt} × the capacity of ${capacity}`
        },
        503,
        overloadHeader
      )
    }
    const delayMillis = Math.round(baseMillis * Math.max(1, concurrent / capacity))
    const answered = await sleep(delayMillis, signal)
    state.capacity.leave(answered ? "served" : "abandoned")
    // The client left during the wait: the listener counted it abandoned, and there is nobody to answer.
    if (!answered) return silent
    return json({ capacity, concurrent, delayMillis }, 200, { "x-chaos-delay": String(delayMillis) })
  }

/**
 * `GET /__capacity`: the capacity route's counters; `POST /__capacity?limit=N` sets its capacity (1 to 100,000)
 * and answers them.
 *
 * @internal
 */
export const capacityControlRoute =
  (state: ChaosState) =>
  ({ request, query }: Exchange): Answer => {
    if (request.method === "POST") {
      const limit = integerParam(query, "limit", { min: 1, max: capacityDefaults.maxLimit }, Number.NaN)
      if (Number.isNaN(limit)) {
        return json({ error: `POST /__capacity needs ?limit=N, 1 to ${capacityDefaults.maxLimit}` }, 400)
      }
      state.capacity.setLimit(limit)
    }
    return json(state.capacity.snapshot())
  }
