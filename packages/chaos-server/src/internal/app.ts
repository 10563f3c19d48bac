import type * as Http from "node:http"
import { basicAuthRoute } from "./basicAuth.js"
import { capacityControlRoute, capacityRoute } from "./capacity.js"
import * as Cors from "./cors.js"
import { BadRequest, PayloadTooLarge, quote } from "./errors.js"
import { type Answer, type Exchange, empty, errorJson, json, silent, sleep } from "./exchange.js"
import * as Faults from "./faults.js"
import * as Latency from "./latency.js"
import * as Namespaces from "./namespaces.js"
import * as Orders from "./orders.js"
import { rateLimitRoute } from "./rateLimit.js"
import {
  delayParam,
  integerParam,
  omitRetryAfter,
  parseTarget,
  retryAfterHeader,
  retryAfterParam,
  retryAfterSeconds
} from "./params.js"
import * as SampleData from "./sampleData.js"
import type { ChaosState } from "./state.js"
import { categoryOf, forbidsContent, parseStatus, statusText } from "./status.js"

/** @internal */
export interface AppConfig {
  readonly maxBodyBytes: number
  /** Undefined when CORS is off. */
  readonly cors: Cors.ResolvedCors | undefined
}

const maxRetryKeyLength = 128

/** Paths that observe or steer the server; requests to them are not counted. */
const statsPath = "/__stats"
const resetPath = "/__reset"
const capacityPath = "/__capacity"

type Params = Readonly<Record<string, string>>

interface Route {
  /** The pattern split at "/": a segment `:name` matches any one segment and names it. */
  readonly segments: ReadonlyArray<string>
  /** The methods it accepts, answering 405 with `Allow` to others; any method when absent. */
  readonly methods: ReadonlyArray<string> | undefined
  /** Answers at once, or later (an endpoint that waits before answering). */
  readonly handle: (exchange: Exchange, params: Params) => Answer | Promise<Answer>
}

const route = (pattern: string, handle: Route["handle"], methods?: ReadonlyArray<string>): Route => ({
  segments: pattern.split("/"),
  methods,
  handle
})

/**
 * A path parameter, percent-decoded. A segment that is not valid percent-encoding (`a%b`, a `%` not followed by
 * two hex digits, or escapes that are not UTF-8) is taken as its raw text, as a browser's address bar takes a
 * stray `%`: a retry key such as `50%off` then works, and is the same key as its encoded form `50%25off`.
 */
const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** The route whose pattern has as many segments as `path` and agrees on every fixed one, with its parameters. */
const match = (
  routes: ReadonlyArray<Route>,
  path: string
): { readonly route: Route; readonly params: Params } | undefined => {
  const segments = path.split("/")
  for (const candidate of routes) {
    if (candidate.segments.length !== segments.length) continue
    const params: Record<string, string> = {}
    const matches = candidate.segments.every((expected, index) => {
      const actual = segments[index] ?? ""
      if (!expected.startsWith(":")) return expected === actual
      params[expected.slice(1)] = actual
      return true
    })
    if (matches) {
      // Decoded only once matched: a fixed segment is compared as sent.
      for (const [name, raw] of Object.entries(params)) params[name] = decodeSegment(raw)
      return { route: candidate, params }
    }
  }
  return undefined
}

/** `/api/status/:code`: the status asked for, described in JSON. */
const statusRoute = ({ query }: Exchange, params: Params): Answer => {
  const status = parseStatus("status", params.code ?? "", { min: 200, max: 599 })
  // Servers send Retry-After with 503 and 429 in practice; any other status carries it only when asked to.
  const defaultRetryAfter = status === 503 || status === 429 ? retryAfterSeconds(5) : omitRetryAfter
  const headers = retryAfterHeader(retryAfterParam(query, defaultRetryAfter))
  if (forbidsContent(status)) {
    return empty(status, headers)
  }
  const text = statusText(status)
  return json(
    { status, statusText: text, category: categoryOf(status), message: `Simulated ${status} ${text}` },
    status,
    headers
  )
}

/**
 * `/api/chaos/retry/:key`: the first `succeedAfter` requests for a key fail, later ones succeed. Every answer
 * tells in `X-Attempt` how many requests the key has seen, so a test can check a client's attempt count from
 * the outside.
 */
const retryRoute =
  (state: ChaosState) =>
  ({ namespace, query }: Exchange, params: Params): Answer => {
    const key = params.key ?? ""
    if (key.length === 0 || key.length > maxRetryKeyLength) {
      throw new BadRequest(`retry key must have 1 to ${maxRetryKeyLength} characters`)
    }
    const succeedAfter = integerParam(query, "succeedAfter", { min: 0, max: 1_000_000 }, 2)
    const rawFailStatus = query.get("failStatus")
    const failStatus = rawFailStatus === null ? 503 : parseStatus("failStatus", rawFailStatus, { min: 400, max: 599 })
    const retryAfter = retryAfterParam(query, retryAfterSeconds(1))
    // Count only once the request is known to be valid: a rejected request is not an attempt.
    const attempt = state.nextAttempt(namespace, key)
    const attemptHeader = { "x-attempt": String(attempt) }
    if (attempt <= succeedAfter) {
      return json(
        {
          status: failStatus,
          error: statusText(failStatus),
          message: `Attempt ${attempt} for key ${quote(key)} fails; attempts after ${succeedAfter} succeed`,
          attempt,
          succeedAfter
        },
        failStatus,
        { ...retryAfterHeader(retryAfter), ...attemptHeader }
      )
    }
    return json(
      { status: 200, key, attempt, succeedAfter, message: `Attempt ${attempt} for key ${quote(key)} succeeds` },
      200,
      attemptHeader
    )
  }

/** Ids are positive integers; a well-formed id outside the catalogue is a 404, like a missing database row. */
const resourceRoute =
  <A>(kind: string, find: (id: number) => A) =>
  (_: Exchange, params: Params): Answer => {
    const raw = params.id ?? ""
    if (!/^\d{1,9}$/.test(raw)) {
      throw new BadRequest(`${kind} id must be a positive integer, got ${quote(raw)}`)
    }
    const id = Number(raw)
    return id >= 1 && id <= SampleData.maxResourceId ? json(find(id)) : errorJson(404, `${kind} ${id} not found`)
  }

/** `/v1/search?q=&type=track`: a Spotify-like track search. */
const searchRoute = ({ query }: Exchange): Answer => {
  const text = query.get("q")
  if (text === null || text.trim().length === 0) {
    throw new BadRequest("q is required")
  }
  if (text.length > SampleData.maxQueryLength) {
    throw new BadRequest(`q must have at most ${SampleData.maxQueryLength} characters`)
  }
  const type = query.get("type")
  if (type !== "track") {
    throw new BadRequest(
      type === null ? 'type is required and must be "track"' : `type must be "track", got ${quote(type)}`
    )
  }
  return json(SampleData.searchTracks(text))
}

/** `GET /__stats`: the whole server's stats; under a namespace, `GET /__ns/NAME/__stats`, that namespace's. */
const statsRoute =
  (state: ChaosState) =>
  ({ namespace }: Exchange): Answer =>
    json(namespace === Namespaces.defaultNamespace ? state.snapshot() : state.namespaceSnapshot(namespace))

/**
 * `POST /__reset`: resets everything, or with `?namespace=NAME` that namespace alone; under a namespace,
 * `POST /__ns/NAME/__reset`, that namespace alone.
 */
const resetRoute =
  (state: ChaosState) =>
  ({ namespace, query }: Exchange): Answer => {
    const named = query.get("namespace")
    if (namespace !== Namespaces.defaultNamespace) {
      if (named !== null) {
        throw new BadRequest(
          `the path names the namespace ${quote(namespace)}: ?namespace= is for ${resetPath} outside any namespace`
        )
      }
      state.resetNamespace(namespace)
    } else if (named !== null) {
      const problem = Namespaces.nameProblem(named)
      if (problem !== undefined) throw new BadRequest(problem)
      state.resetNamespace(named)
    } else {
      state.reset()
    }
    return empty(204)
  }

const makeRoutes = (state: ChaosState): ReadonlyArray<Route> => [
  route("/api/status/:code", statusRoute),
  route("/api/chaos/retry/:key", retryRoute(state)),
  route("/api/chaos/reset", Faults.connectionReset),
  route("/api/chaos/hang", Faults.hang),
  route("/api/chaos/truncate", Faults.truncatedResponse),
  route("/api/chaos/invalid-json", Faults.invalidJson),
  route("/api/chaos/slow-body", Faults.slowBody),
  route("/api/chaos/large-json", Faults.largeJson),
  route("/api/chaos/latency/:key", Latency.latencyRoute(state), ["GET", "HEAD"]),
  route("/api/chaos/rate-limit/:key", rateLimitRoute(state)),
  route("/api/chaos/capacity", capacityRoute(state)),
  route(Faults.redirectLoopPath, Faults.redirectLoop),
  route(Orders.ordersPath, Orders.placeOrder(state), ["POST"]),
  route(`${Orders.ordersPath}/:orderId`, Orders.findOrder(state), ["GET", "HEAD"]),
  route("/api/basic-auth/:user/:password", basicAuthRoute),
  route("/api/Products/:id", resourceRoute("product", SampleData.product)),
  route("/api/Todos/:id", resourceRoute("todo", SampleData.todo)),
  route("/v1/search", searchRoute),
  route(statsPath, statsRoute(state), ["GET", "HEAD"]),
  route(resetPath, resetRoute(state), ["POST"]),
  route(capacityPath, capacityControlRoute(state), ["GET", "HEAD", "POST"])
]

const dispatch = (routes: ReadonlyArray<Route>, exchange: Exchange): Answer | Promise<Answer> => {
  const method = exchange.request.method ?? "GET"
  const found = match(routes, exchange.path)
  // The path as the client sent it, namespace included.
  const sentPath = `${Namespaces.prefixOf(exchange.namespace)}${exchange.path}`
  if (found === undefined) {
    return errorJson(404, `no route for ${method} ${sentPath}`)
  }
  const { methods } = found.route
  if (methods !== undefined && !methods.includes(method)) {
    return errorJson(405, `${sentPath} accepts ${methods.join(", ")}, not ${method}`, {
      allow: methods.join(", ")
    })
  }
  return found.route.handle(exchange, found.params)
}

/**
 * Reads the request body, failing once it exceeds `maxBytes`; keeps it only when `keep` (the other endpoints
 * discard it). Reading it keeps keep-alive connections usable.
 *
 * Past the limit the request is left flowing with no listener, so node discards the rest of the body: closing
 * or destroying a socket with unread input sends a RST that can wipe out the 413 before the client reads it.
 */
const readBody = (request: Http.IncomingMessage, maxBytes: number, keep: boolean): Promise<Buffer | undefined> => {
  const declaredLength = request.headers["content-length"]
  const hasBody = declaredLength !== undefined || request.headers["transfer-encoding"] !== undefined
  if (!hasBody || request.readableEnded) {
    return Promise.resolve(undefined)
  }
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) {
    request.resume()
    return Promise.reject(new PayloadTooLarge(maxBytes))
  }
  return new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let received = 0
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received > maxBytes) {
        stopListening()
        request.resume()
        reject(new PayloadTooLarge(maxBytes))
      } else if (keep) {
        chunks.push(chunk)
      }
    }
    const onEnd = () => {
      stopListening()
      resolve(keep ? Buffer.concat(chunks) : undefined)
    }
    const onBroken = () => {
      stopListening()
      reject(new BadRequest("the request body could not be read"))
    }
    const stopListening = () => {
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("error", onBroken)
      request.off("close", onBroken)
    }
    request.on("data", onData)
    request.on("end", onEnd)
    request.on("error", onBroken)
    request.on("close", onBroken)
  })
}

/**
 * The faults any path accepts: `?delay=S` answers late and `?error=CODE` replaces the answer with a simulated
 * error. Both are validated before waiting, so a malformed request is refused at once. Undefined: no fault
 * replaces the endpoint's answer.
 */
const queryFaults = async ({ namespace, path, query, signal }: Exchange): Promise<Answer | undefined> => {
  const delayMillis = delayParam(query)
  const rawError = query.get("error")
  const simulatedStatus = rawError === null ? undefined : parseStatus("error", rawError, { min: 400, max: 599 })
  if (delayMillis > 0 && !(await sleep(delayMillis, signal))) {
    // The client left during the wait: nobody to answer.
    return silent
  }
  if (simulatedStatus === undefined) {
    return undefined
  }
  const text = statusText(simulatedStatus)
  return json(
    {
      status: simulatedStatus,
      error: text,
      message: `Simulated ${simulatedStatus} ${text} for ${Namespaces.prefixOf(namespace)}${path}`,
      simulated: true
    },
    simulatedStatus,
    { "x-simulated": "true" }
  )
}

/** What the streaming endpoints report (see `Stats.responses`). */
interface BodyMeter {
  readonly started: () => void
  readonly ended: () => void
  readonly sent: (bytes: number) => void
}

/** Resolves once the response can take more (or the client left): the next chunk waits for the socket. */
const drained = (response: Http.ServerResponse, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      response.off("drain", done)
      signal.removeEventListener("abort", done)
      resolve()
    }
    response.once("drain", done)
    signal.addEventListener("abort", done, { once: true })
  })

/**
 * Writes a streamed answer chunk by chunk, asking for the next chunk only once the socket has taken the last:
 * counting each chunk as it is written counts what the socket accepted, so a client that stops reading stops
 * the count. The body counts as streaming until it ends or the client leaves.
 */
const stream = async (
  response: Http.ServerResponse,
  answer: Extract<Answer, { readonly _tag: "Streamed" }>,
  signal: AbortSignal,
  meter: BodyMeter
): Promise<void> => {
  if (response.req.method === "HEAD") {
    // Node sends no body for HEAD and ignores writes: producing one would only count bytes never sent.
    response.writeHead(answer.status, answer.headers)
    response.end()
    return
  }
  meter.started()
  try {
    response.writeHead(answer.status, answer.headers)
    for await (const chunk of answer.body(signal)) {
      if (signal.aborted) return
      meter.sent(chunk.byteLength)
      if (!response.write(chunk)) await drained(response, signal)
    }
    if (!signal.aborted) response.end()
  } finally {
    meter.ended()
  }
}

/**
 * The header that tells a 503 for a connection beyond `maxConnections` from an endpoint's 503 (`/api/status/503`,
 * a retry key's failures), and its value.
 */
const overloadHeader = { name: "x-chaos-overload", maxConnections: "max-connections" } as const

/**
 * Answers a request that came on a connection beyond `maxConnections`: 503 with `X-Chaos-Overload` and
 * `Connection: close`, the endpoint never run. The body is discarded as it arrives, so closing the connection
 * does not reset it under the answer.
 */
const rejectOverloaded = (
  request: Http.IncomingMessage,
  response: Http.ServerResponse,
  maxConnections: number,
  sharedHeaders: Readonly<Record<string, string>>
) => {
  request.resume()
  const body = JSON.stringify({
    error: `the chaos server already serves maxConnections (${maxConnections}) connections: a request on a further one is answered 503 and its connection closed`
  })
  response.writeHead(503, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    [overloadHeader.name]: overloadHeader.maxConnections,
    connection: "close",
    ...sharedHeaders
  })
  response.end(body)
}

/**
 * Answers a CORS preflight with `204` and what the page may send, before any endpoint: it is the browser asking,
 * not the page's request, so it must not advance a retry key or place an order. A body, which a preflight never
 * has, is discarded.
 */
const answerPreflight = (request: Http.IncomingMessage, response: Http.ServerResponse, cors: Cors.ResolvedCors) => {
  request.resume()
  response.writeHead(204, Cors.preflightHeaders(cors, request))
  response.end()
}

const unexpected = (error: unknown): Answer => {
  console.error("chaos server handler failed", error)
  return errorJson(500, "the chaos server failed unexpectedly")
}

// The endpoint's answer to one exchange, its body read (bounded) first; every refusal a JSON answer.
const answer = async (
  routes: ReadonlyArray<Route>,
  config: AppConfig,
  exchange: Omit<Exchange, "body">,
  observes: boolean,
  invalidNamespace: string | undefined
): Promise<Answer> => {
  try {
    const body = await readBody(exchange.request, config.maxBodyBytes, exchange.path === Orders.ordersPath)
    // Refused once the body is read, so that the connection stays usable.
    if (invalidNamespace !== undefined) throw new BadRequest(invalidNamespace)
    const withBody: Exchange = { ...exchange, body }
    // Awaited here, so that a refusal of an endpoint that answers later is caught below too.
    if (observes) return await dispatch(routes, withBody)
    return (await queryFaults(withBody)) ?? (await dispatch(routes, withBody))
  } catch (error) {
    if (error instanceof BadRequest) return errorJson(400, error.message)
    // No "Connection: close": node discards the rest of the body instead (never buffering it, and within the
    // server's request timeout), and the connection stays reusable.
    if (error instanceof PayloadTooLarge) return errorJson(413, error.message)
    return unexpected(error)
  }
}

// Writes an answer that is sent (neither silent nor taken over), with the CORS headers and its length.
const writeAnswer = (
  response: Http.ServerResponse,
  result: Exclude<Answer, { readonly _tag: "Silent" | "TakenOver" }>,
  sharedHeaders: Readonly<Record<string, string>>,
  signal: AbortSignal,
  meter: BodyMeter
): Promise<void> | undefined => {
  if (result._tag === "Streamed") {
    return stream(response, { ...result, headers: { ...result.headers, ...sharedHeaders } }, signal, meter)
  }
  const withShared = { ...result.headers, ...sharedHeaders }
  const headers =
    result.body === undefined
      ? forbidsContent(result.status)
        ? withShared
        : { ...withShared, "content-length": "0" }
      : { ...withShared, "content-length": String(Buffer.byteLength(result.body)) }
  response.writeHead(result.status, headers)
  response.end(result.body)
  return undefined
}

/**
 * The whole chaos server as one node request listener: answers CORS preflights (with CORS on), counts the
 * request, bounds its body, applies the query faults, routes it, turns every refusal into a JSON answer, and adds
 * the CORS headers to every answer.
 *
 * @internal
 */
export const makeRequestListener = (
  state: ChaosState,
  config: AppConfig
): ((request: Http.IncomingMessage, response: Http.ServerResponse) => void) => {
  const routes = makeRoutes(state)
  const meter: BodyMeter = {
    started: () => state.bodyStarted(),
    ended: () => state.bodyEnded(),
    sent: (bytes) => state.bodyBytesSent(bytes)
  }

  return (request, response) => {
    const target = parseTarget(request.url ?? "/")
    const scoped = Namespaces.splitPath(target.path)
    const { namespace, path } =
      scoped._tag === "Scoped" ? scoped : { namespace: Namespaces.defaultNamespace, path: target.path }
    const invalidNamespace = scoped._tag === "InvalidName" ? scoped.message : undefined
    const observes = scoped._tag === "Scoped" && (path === statsPath || path === resetPath || path === capacityPath)
    const sharedHeaders = config.cors === undefined ? {} : Cors.responseHeaders(config.cors, request)
    // Preflights come first, even on a connection beyond maxConnections: refusing one would show the page a CORS
    // failure where the request itself would have shown it the 503 and its X-Chaos-Overload.
    if (config.cors !== undefined && Cors.isPreflight(request)) {
      if (!observes) state.preflightAnswered(namespace)
      answerPreflight(request, response, config.cors)
      return
    }
    // A connection beyond maxConnections reaches no endpoint and counts in no request stats; `/__stats` and
    // `/__reset` still answer on it, so that a test can see and clear the server while it is saturated.
    if (!observes && state.isRejected(request.socket)) {
      rejectOverloaded(request, response, state.limits.maxConnections, sharedHeaders)
      return
    }
    const aborter = new AbortController()
    // A request is in flight from its arrival until its answer starts to leave or its connection closes.
    let inFlight = !observes
    const finish = () => {
      if (inFlight) {
        inFlight = false
        state.requestFinished()
      }
    }
    // Until its answer starts to leave (or its endpoint takes the socket over), a request whose connection closes
    // was left by its client. The one place every endpoint learns of it, so every one counts it alike.
    let awaitingAnswer = !observes
    // Counted under the whole path, and in the namespace's own total.
    if (!observes) state.requestStarted(target.path, namespace)
    response.once("close", () => {
      if (awaitingAnswer) state.requestAbandoned(namespace)
      awaitingAnswer = false
      finish()
      aborter.abort()
    })

    const send = (result: Answer): Promise<void> | undefined => {
      if (result._tag === "Silent") return undefined
      awaitingAnswer = false
      // A sabotaged socket stays in flight until it closes, as a handler still at work on it.
      if (result._tag === "TakenOver") return undefined
      finish()
      if (response.destroyed) return undefined
      return writeAnswer(response, result, sharedHeaders, aborter.signal, meter)
    }

    answer(
      routes,
      config,
      { request, namespace, path, query: target.query, signal: aborter.signal, sharedHeaders },
      observes,
      invalidNamespace
    )
      .then(send)
      .catch((error: unknown) => {
        // A failure once the answer has started (a broken stream) can only end the connection.
        if (response.headersSent) response.destroy()
        else return send(unexpected(error))
      })
  }
}
