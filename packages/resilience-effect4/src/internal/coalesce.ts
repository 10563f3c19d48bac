// @generated from templates/src/internal/coalesce.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Request coalescing (docs/coalescing.md): identical GETs and HEADs in flight share one whole
 * resilient call (one request sequence, one budget deposit, one permit), which runs in a fiber of
 * its own and whose body is buffered, up to a cap, for every caller to read. The table of calls
 * in flight is kept by the store (`keep`), one per stage value: under `TestClock` each test's own.
 *
 * A caller that is interrupted leaves; the shared call is interrupted only when none is left.
 * Past the cap, or when the body breaks off, every caller sends its own call.
 *
 * @internal
 */
import * as CoalesceCore from "@effect-http-resilience/core/Coalesce"
import { ByAuthority } from "@effect-http-resilience/core/Origin"
import * as Body from "@effect-http-resilience/core/ResponseBody"
import { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as Headers from "effect/http/Headers"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as UrlParams from "effect/http/UrlParams"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import type * as Scope from "effect/Scope"
import type * as Coalesce from "../Coalesce.js"
import * as ResilienceStore from "../ResilienceStore.js"
import * as line from "./line.js"
import * as metrics from "./metrics.js"
import * as resilienceStore from "./resilienceStore.js"
import { collectAtMost, drain } from "./responseBody.js"

/** What the shared call came to: a response buffered for every caller, or one each must send. */
type Shared =
  | {
      readonly _tag: "Buffered"
      readonly status: number
      readonly headers: Headers.Headers
      readonly body: Uint8Array | null
    }
  | { readonly _tag: "Unshared" }

const unshared: Shared = { _tag: "Unshared" }

/** One shared call in flight: its result, how many callers wait for it, and its fiber. */
interface InFlight<E> {
  readonly result: Deferred.Deferred<Shared, E>
  callers: number
  fiber: Fiber.Fiber<void> | undefined
}

// Which client's calls a table holds: the typed client's and the platform's fail differently.
type Kind = "typed" | "platform"

/**
 * The stage's part in a call: `call` (the whole resilient call of `request`) run once for every
 * identical request in flight.
 *
 * @internal
 */
export type Around = <E, R>(
  store: ResilienceStore.ResilienceStore.Service | undefined,
  kind: Kind,
  request: HttpClientRequest.HttpClientRequest,
  call: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>
) => Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>

const coalescedMetric = Metric.counter(CoalesceCore.coalescedMetric.name, {
  description: CoalesceCore.coalescedMetric.description,
  incremental: true
})

// Made once per origin, as the attempt loop's counters are.
const coalescedCounts = new ByAuthority((origin) => line.counter(coalescedMetric, metrics.originAttributes(origin)))

const countCoalesced = (url: string): Effect.Effect<void> => coalescedCounts.get(url)() ?? Effect.void

// Statuses whose response has no body, which a Web `Response` refuses one for.
const nullBodyStatuses: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])

// The body read up to the cap, on the shared call's fiber (its scope releases the rest). A body
// past the cap, one that breaks off, or a status a Web `Response` cannot carry is not shared.
const buffer =
  (maxBodyBytes: number, method: string) =>
  (response: HttpClientResponse.HttpClientResponse): Effect.Effect<Shared> => {
    const { status, headers } = response
    if (status < 200 || status > 599) return Effect.as(drain(response), unshared)
    if (method === "HEAD" || nullBodyStatuses.has(status)) {
      return Effect.as(drain(response), { _tag: "Buffered", status, headers, body: null })
    }
    const declared = Body.declaredLength(headers)
    if (declared !== undefined && declared > maxBodyBytes) return Effect.as(drain(response, 0), unshared)
    return collectAtMost(response, maxBodyBytes).pipe(
      Effect.map(
        (collected): Shared =>
          collected.size > maxBodyBytes
            ? unshared
            : { _tag: "Buffered", status, headers, body: collected.bytes(maxBodyBytes) }
      ),
      Effect.orElseSucceed(() => unshared)
    )
  }

// Each caller's own response over the shared bytes: the platform's Web response, read as any.
const responseFor = (
  request: HttpClientRequest.HttpClientRequest,
  shared: Extract<Shared, { _tag: "Buffered" }>
): HttpClientResponse.HttpClientResponse =>
  HttpClientResponse.fromWeb(
    request,
    new Response(shared.body === null ? null : shared.body.slice(), {
      status: shared.status,
      headers: Object.entries(shared.headers)
    })
  )

const keyOf = (settings: Coalesce.Settings, request: HttpClientRequest.HttpClientRequest): string | undefined => {
  const { method } = request
  if (!CoalesceCore.isCoalescible(method) || request.body._tag !== "Empty") return undefined
  if (settings.key === undefined) {
    return CoalesceCore.defaultKey(method, request.url, request.headers, UrlParams.toString(request.urlParams))
  }
  const key = settings.key(request)
  // The method stays in the key whatever the function says: a HEAD's answer is no GET's.
  return key === undefined ? undefined : `${method} ${key}`
}

// A caller that leaves (interrupted): the last one out interrupts the shared call.
const leave = <E>(table: Map<string, InFlight<E>>, key: string, entry: InFlight<E>): Effect.Effect<void> =>
  Effect.suspend(() => {
    entry.callers -= 1
    if (entry.callers > 0) return Effect.void
    if (table.get(key) === entry) table.delete(key)
    return entry.fiber === undefined ? Effect.void : Effect.asVoid(Fiber.interrupt(entry.fiber))
  })

// The shared call, on a fiber of its own: the whole resilient call, its body buffered in a scope
// of its own; its result goes to every caller, and the table forgets it.
const runShared = <E, R>(
  table: Map<string, InFlight<E>>,
  key: string,
  entry: InFlight<E>,
  read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<Shared>,
  call: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>
): Effect.Effect<void, never, Exclude<R, Scope.Scope>> =>
  Effect.flatMap(Effect.exit(Effect.scoped(Effect.flatMap(call, read))), (exit) =>
    Effect.suspend(() => {
      if (table.get(key) === entry) table.delete(key)
      return Deferred.done(entry.result, exit)
    })
  )

// Joins the call in flight under `key`, or starts it. The table is read and written in one
// synchronous step, and the shared fiber forked uninterruptibly: a caller interrupted meanwhile
// leaves no entry without its fiber.
const joinOrLead = <E, R>(
  table: Map<string, InFlight<E>>,
  key: string,
  read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<Shared>,
  request: HttpClientRequest.HttpClientRequest,
  call: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>
): Effect.Effect<HttpClientResponse.HttpClientResponse, E, R> =>
  Effect.flatMap(Deferred.make<Shared, E>(), (result) => {
    let follower = false
    const joined = Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        const known = table.get(key)
        follower = known !== undefined
        const entry: InFlight<E> = known ?? { result, callers: 0, fiber: undefined }
        entry.callers += 1
        const awaited = Effect.onInterrupt(restore(Deferred.await(entry.result)), () => leave(table, key, entry))
        if (follower) return awaited
        table.set(key, entry)
        const started = Effect.forkDetach(Effect.interruptible(runShared(table, key, entry, read, call)))
        return Effect.flatMap(started, (fiber) => {
          entry.fiber = fiber
          return awaited
        })
      })
    )
    return Effect.matchCauseEffect(joined, {
      onFailure: (cause) =>
        follower ? Effect.andThen(countCoalesced(request.url), Effect.failCause(cause)) : Effect.failCause(cause),
      onSuccess: (shared): Effect.Effect<HttpClientResponse.HttpClientResponse, E, R> => {
        if (shared._tag === "Unshared") return call
        const response = responseFor(request, shared)
        return follower ? Effect.as(countCoalesced(request.url), response) : Effect.succeed(response)
      }
    })
  })

let stages = 0

/**
 * The coalescing stage: a table of calls in flight per stage value (and client kind), kept by the store.
 *
 * @internal
 */
export const stage = (settings: Coalesce.Settings): Coalesce.Coalesce => {
  const id = `coalesce ${++stages}`
  const read = (method: string) => buffer(settings.maxBodyBytes, method)
  const around: Around = <E, R>(
    given: ResilienceStore.ResilienceStore.Service | undefined,
    kind: Kind,
    request: HttpClientRequest.HttpClientRequest,
    call: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>
  ) => {
    const key = keyOf(settings, request)
    if (key === undefined) return call
    const tableIn = (store: ResilienceStore.ResilienceStore.Service) =>
      store.keep(`${id} ${kind}`, () => new Map<string, InFlight<E>>())
    return Effect.clockWith((clock) =>
      Effect.flatMap(given === undefined ? ResilienceStore.ResilienceStore : Effect.succeed(given), (store) =>
        joinOrLead(tableIn(resilienceStore.concrete(store, clock)), key, read(request.method), request, call)
      )
    )
  }
  return { [StageTypeId]: "coalesce", settings, around }
}
