import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Http from "node:http"
import { BadRequest, PayloadTooLarge, quote } from "./errors.js"
import * as Faults from "./faults.js"
import {
  delayParam,
  integerParam,
  omitRetryAfter,
  parseTarget,
  retryAfterHeader,
  retryAfterParam,
  retryAfterSeconds,
  searchParams
} from "./params.js"
import * as SampleData from "./sampleData.js"
import type { ChaosState } from "./state.js"
import { categoryOf, forbidsContent, parseStatus, statusText } from "./status.js"

/** @internal */
export interface AppConfig {
  readonly maxBodyBytes: number
}

/** @internal */
export const maxRetryKeyLength = 128

/** Paths that observe or steer the server; requests to them are not counted. */
const statsPath = "/__stats"
const resetPath = "/__reset"

const json = (
  body: unknown,
  status = 200,
  headers: Record<string, string> = {}
): HttpServerResponse.HttpServerResponse => HttpServerResponse.unsafeJson(body, { status, headers })

const errorJson = (status: number, message: string, headers: Record<string, string> = {}) =>
  json({ error: message }, status, headers)

const currentQuery = Effect.map(HttpServerRequest.HttpServerRequest, (request) => searchParams(request.url))

const pathParam = (name: string) => Effect.map(HttpRouter.params, (params) => params[name] ?? "")

/** Runs `handler` for the listed methods and answers 405 with `Allow` for any other. */
const onlyMethods = <E, R>(
  allowed: ReadonlyArray<string>,
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    allowed.includes(request.method)
      ? handler
      : Effect.succeed(
          errorJson(405, `${parseTarget(request.url).path} accepts ${allowed.join(", ")}, not ${request.method}`, {
            allow: allowed.join(", ")
          })
        )
  )

/** `GET /api/status/:code`: the status asked for, described in JSON. */
const statusRoute = Effect.gen(function* () {
  const status = yield* Effect.flatMap(pathParam("code"), (raw) => parseStatus("status", raw, { min: 200, max: 599 }))
  const query = yield* currentQuery
  // Servers send Retry-After with 503 and 429 in practice; any other status carries it only when asked to.
  const defaultRetryAfter = status === 503 || status === 429 ? retryAfterSeconds(5) : omitRetryAfter
  const headers = yield* Effect.flatMap(retryAfterParam(query, defaultRetryAfter), retryAfterHeader)
  if (forbidsContent(status)) {
    return HttpServerResponse.empty({ status, headers })
  }
  const text = statusText(status)
  return json(
    { status, statusText: text, category: categoryOf(status), message: `Simulated ${status} ${text}` },
    status,
    headers
  )
})

/**
 * `GET /api/chaos/retry/:key`: the first `succeedAfter` requests for a key fail, later ones succeed. Every
 * answer tells in `X-Attempt` how many requests the key has seen, so a test can check a client's attempt count
 * from the outside.
 */
const retryRoute = (state: ChaosState) =>
  Effect.gen(function* () {
    const key = yield* pathParam("key")
    if (key.length === 0 || key.length > maxRetryKeyLength) {
      return yield* new BadRequest({ message: `retry key must have 1 to ${maxRetryKeyLength} characters` })
    }
    const query = yield* currentQuery
    const succeedAfter = yield* integerParam(query, "succeedAfter", { min: 0, max: 1_000_000 }, 2)
    const rawFailStatus = query.get("failStatus")
    const failStatus =
      rawFailStatus === null ? 503 : yield* parseStatus("failStatus", rawFailStatus, { min: 400, max: 599 })
    const retryAfter = yield* retryAfterParam(query, retryAfterSeconds(1))
    // Count only once the request is known to be valid: a rejected request is not an attempt.
    const attempt = yield* Effect.sync(() => state.nextAttempt(key))
    const attemptHeader = { "x-attempt": String(attempt) }
    if (attempt <= succeedAfter) {
      const headers = yield* retryAfterHeader(retryAfter)
      return json(
        {
          status: failStatus,
          error: statusText(failStatus),
          message: `Attempt ${attempt} for key ${quote(key)} fails; attempts after ${succeedAfter} succeed`,
          attempt,
          succeedAfter
        },
        failStatus,
        { ...headers, ...attemptHeader }
      )
    }
    return json(
      { status: 200, key, attempt, succeedAfter, message: `Attempt ${attempt} for key ${quote(key)} succeeds` },
      200,
      attemptHeader
    )
  })

/** Ids are positive integers; a well-formed id outside the catalogue is a 404, like a missing database row. */
const resourceRoute = <A>(kind: string, find: (id: number) => A) =>
  Effect.gen(function* () {
    const raw = yield* pathParam("id")
    if (!/^\d{1,9}$/.test(raw)) {
      return yield* new BadRequest({ message: `${kind} id must be a positive integer, got ${quote(raw)}` })
    }
    const id = Number(raw)
    return id >= 1 && id <= SampleData.maxResourceId ? json(find(id)) : errorJson(404, `${kind} ${id} not found`)
  })

/** `GET /v1/search?q=&type=track`: a Spotify-like track search. */
const searchRoute = Effect.gen(function* () {
  const query = yield* currentQuery
  const text = query.get("q")
  if (text === null || text.trim().length === 0) {
    return yield* new BadRequest({ message: "q is required" })
  }
  if (text.length > SampleData.maxQueryLength) {
    return yield* new BadRequest({ message: `q must have at most ${SampleData.maxQueryLength} characters` })
  }
  const type = query.get("type")
  if (type !== "track") {
    return yield* new BadRequest({
      message: type === null ? 'type is required and must be "track"' : `type must be "track", got ${quote(type)}`
    })
  }
  return json(SampleData.searchTracks(text))
})

const makeRouter = (state: ChaosState) => {
  const meter: Faults.BodyMeter = {
    started: () => state.bodyStarted(),
    ended: () => state.bodyEnded(),
    sent: (bytes) => state.bodyBytesSent(bytes)
  }
  return HttpRouter.empty.pipe(
    HttpRouter.all("/api/status/:code", statusRoute),
    HttpRouter.all("/api/chaos/retry/:key", retryRoute(state)),
    HttpRouter.all("/api/chaos/reset", Faults.connectionReset),
    HttpRouter.all("/api/chaos/hang", Faults.hang),
    HttpRouter.all("/api/chaos/truncate", Faults.truncatedResponse),
    HttpRouter.all("/api/chaos/invalid-json", Effect.succeed(Faults.invalidJson)),
    HttpRouter.all("/api/chaos/slow-body", Faults.slowBody(meter)),
    HttpRouter.all("/api/chaos/large-json", Faults.largeJson(meter)),
    HttpRouter.all(Faults.redirectLoopPath, Faults.redirectLoop),
    HttpRouter.all("/api/Products/:id", resourceRoute("product", SampleData.product)),
    HttpRouter.all("/api/Todos/:id", resourceRoute("todo", SampleData.todo)),
    HttpRouter.all("/v1/search", searchRoute),
    HttpRouter.all(
      statsPath,
      onlyMethods(
        ["GET", "HEAD"],
        Effect.sync(() => json(state.snapshot()))
      )
    ),
    HttpRouter.all(
      resetPath,
      onlyMethods(
        ["POST"],
        Effect.sync(() => {
          state.reset()
          return HttpServerResponse.empty({ status: 204 })
        })
      )
    )
  )
}

/**
 * Builds the route table now, under a router configuration of our own: find-my-way answers "not found" to a
 * parameter longer than 100 characters by default, where an over-long retry key deserves a 400 that says why.
 * Node's 16 KiB header limit bounds the request line anyway.
 */
const compileRouter = <E, R>(router: HttpRouter.HttpRouter<E, R>) =>
  HttpRouter.toHttpApp(router).pipe(HttpRouter.withRouterConfig({ maxParamLength: 16 * 1024 }))

/**
 * Reads and discards the request body, failing once it exceeds `maxBytes`. Reading it keeps keep-alive
 * connections usable; nothing is buffered, so a large body costs bandwidth, never memory.
 *
 * This listens to node's request directly instead of `request.stream`: that stream destroys the socket when
 * it stops early, and destroying a socket with unread input sends a RST that can wipe out the 413 before the
 * client reads it. Here the request keeps flowing with no listener, so node discards the rest of the body.
 */
const discardBoundedBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<void, PayloadTooLarge | BadRequest> =>
  Effect.suspend(() => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const declaredLength = request.headers["content-length"]
    const hasBody = declaredLength !== undefined || request.headers["transfer-encoding"] !== undefined
    if (!hasBody || incoming.readableEnded) {
      return Effect.void
    }
    if (declaredLength !== undefined && Number(declaredLength) > maxBytes) {
      // Let the body flow to nowhere: node discards it and the connection stays in sync.
      incoming.resume()
      return Effect.fail(new PayloadTooLarge({ limitBytes: maxBytes }))
    }
    return readAtMost(incoming, maxBytes)
  })

const readAtMost = (
  incoming: Http.IncomingMessage,
  maxBytes: number
): Effect.Effect<void, PayloadTooLarge | BadRequest> =>
  Effect.async<void, PayloadTooLarge | BadRequest>((resume) => {
    let received = 0
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received > maxBytes) {
        stopListening()
        resume(Effect.fail(new PayloadTooLarge({ limitBytes: maxBytes })))
      }
    }
    const onEnd = () => {
      stopListening()
      resume(Effect.void)
    }
    const onBroken = () => {
      stopListening()
      resume(Effect.fail(new BadRequest({ message: "the request body could not be read" })))
    }
    const stopListening = () => {
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("error", onBroken)
      incoming.off("aborted", onBroken)
    }
    incoming.on("data", onData)
    incoming.on("end", onEnd)
    incoming.on("error", onBroken)
    incoming.on("aborted", onBroken)
    return Effect.sync(stopListening)
  })

/**
 * The faults any path accepts: `?delay=S` answers late and `?error=CODE` replaces the answer with a simulated
 * error. Both are validated before waiting, so a malformed request is refused at once.
 */
const withQueryFaults = <E, R>(
  path: string,
  query: URLSearchParams,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.gen(function* () {
    const delay = yield* delayParam(query)
    const rawError = query.get("error")
    const simulatedStatus =
      rawError === null
        ? Option.none<number>()
        : Option.some(yield* parseStatus("error", rawError, { min: 400, max: 599 }))
    if (Option.isSome(delay)) {
      // Interrupted by the platform when the client disconnects, so an abandoned delay holds nothing.
      yield* Effect.sleep(delay.value)
    }
    if (Option.isSome(simulatedStatus)) {
      const status = simulatedStatus.value
      const text = statusText(status)
      return json(
        { status, error: text, message: `Simulated ${status} ${text} for ${path}`, simulated: true },
        status,
        { "x-simulated": "true" }
      )
    }
    return yield* answer
  })

/**
 * The whole chaos server as one `HttpApp`: counts the request, bounds its body, applies the query faults,
 * routes it, and turns every expected failure into a JSON answer.
 *
 * @internal
 */
export const makeApp = (state: ChaosState, config: AppConfig): Effect.Effect<HttpApp.Default<never>> =>
  Effect.map(compileRouter(makeRouter(state)), (router) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { path, query } = parseTarget(request.url)
      const readBody = discardBoundedBody(request, config.maxBodyBytes)
      if (path === statsPath || path === resetPath) {
        return yield* Effect.zipRight(readBody, router)
      }
      return yield* Effect.acquireUseRelease(
        Effect.sync(() => state.requestStarted(path)),
        () => Effect.zipRight(readBody, withQueryFaults(path, query, router)),
        () => Effect.sync(() => state.requestFinished())
      )
    }).pipe(
      // The platform runs an app uninterruptibly and makes only router handlers interruptible; the delay above
      // runs outside the router and must stop when the client leaves.
      Effect.interruptible,
      Effect.catchTags({
        BadRequest: (error) => Effect.succeed(errorJson(400, error.message)),
        // No "Connection: close": closing a socket with unread input makes the kernel send a RST, which can
        // destroy the 413 before the client reads it. Node discards the rest of the body instead (never
        // buffering it, and within the server's request timeout), and the connection stays reusable.
        PayloadTooLarge: (error) => Effect.succeed(errorJson(413, `request body exceeds ${error.limitBytes} bytes`)),
        RouteNotFound: (error) =>
          Effect.succeed(errorJson(404, `no route for ${error.request.method} ${parseTarget(error.request.url).path}`))
      }),
      Effect.catchAllDefect((defect) =>
        Effect.as(
          Effect.logError("chaos server handler failed", defect),
          errorJson(500, "the chaos server failed unexpectedly")
        )
      )
    )
  )
