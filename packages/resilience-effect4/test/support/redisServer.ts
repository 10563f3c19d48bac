// @generated from templates/test/support/redisServer.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A redis-server of a test's own, for the suites that claim what processes sharing one Redis do:
 * a real Redis, never a mock. `startRedis` runs Debian's `redis-server` on a free loopback port,
 * with no config file and nothing saved to disk, for vitest's `beforeAll`/`afterAll`:
 *
 * ```ts
 * let redis: RedisInstance
 * beforeAll(async () => {
 *   redis = await startRedis()
 * })
 * afterAll(() => redis?.stop())
 * ```
 *
 * The store runs as the least-privilege user docs/overload.md gives (its `ACL SETUSER` line, read
 * from the guide, for any prefix): `url` is that user's, so that every Redis suite runs the store as
 * an operator would, and `stop` fails, after stopping the server, when Redis refused that user
 * anything (`ACL LOG`): a command the store sends that the guide's ACL lacks. `adminUrl`, and
 * `command`, are the default user's, for what tests do around the store.
 *
 * `stop` and `start` take it down and bring it back on the same port ("Redis restarted"), `kill`
 * ends it as a crash does (SIGKILL), `start({ requirepass })` brings it back asking for a password
 * (and without the store's user, whose password the stores then lack),
 * and `command` sends one command over a raw RESP connection (`FLUSHALL`, `CLIENT PAUSE 500 WRITE`,
 * `DEBUG SLEEP 1`), authenticated when the server asks for a password. A server still running when the process exits is killed then, or when the
 * process dies by a signal, by a watchdog.
 *
 * `startRedisCluster` runs three such servers as the masters of a Redis Cluster (every slot
 * assigned, no replicas), for the tests of a store on a cluster; the same rules hold for each.
 *
 * Without `redis-server` on the PATH, the files that use it skip their tests
 * (`describe.skipIf(skipWithout(redisServer))`, @effect-http-resilience/conformance/systemBinaries),
 * and `startRedis` fails saying how to install it. CI (`.ci/run`) installs it and sets
 * TEST_REQUIRE_BINARIES=1, so that there they run or fail, never skip.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { trusted, untrusted } from "@effect-http-resilience/conformance/redisTls"

/** The store's user on every server of this module: docs/overload.md's ACL, with this password. */
export const storeUser = { username: "http-resilience-store", password: "store-test-password" } as const

const guide = new URL("../../../../docs/overload.md", import.meta.url)

/** docs/overload.md's `ACL SETUSER` line, as an operator copies it. */
export const documentedAcl = (): string => {
  const line = Fs.readFileSync(guide, "utf8")
    .split("\n")
    .find((text) => text.startsWith("ACL SETUSER "))
  if (line === undefined) throw new Error(`docs/overload.md has no line starting "ACL SETUSER "`)
  return line.trim()
}

/**
 * The documented ACL line's arguments, for the store's user (its name and password this module's),
 * on keys and channels of the prefixes `prefix` matches (a glob: `*` for every prefix), where the
 * line has the guide's own prefix, `orders-api`.
 */
const aclFor = (prefix: string): Array<string> => {
  const [acl, setuser, , ...rules] = documentedAcl().split(/\s+/)
  return [
    acl!,
    setuser!,
    storeUser.username,
    ...rules.map((rule) =>
      rule.startsWith(">") ? `>${storeUser.password}` : rule.replaceAll("{orders-api}", `{${prefix}}`)
    )
  ]
}

/** One redis-server, started by {@link startRedis}. */
export interface RedisInstance {
  /**
   * `redis://<store user>:<password>@127.0.0.1:<port>`, for the store: node-redis' `createClient({ url })`
   * or `NodeRedis.layer({ url })` as the least-privilege user of docs/overload.md.
   */
  readonly url: string
  /** `redis://127.0.0.1:<port>`: the default user, allowed everything. */
  readonly adminUrl: string
  readonly port: number
  /**
   * With `startRedis({ tls: true })`: a port that speaks TLS only, with a certificate for
   * 127.0.0.1 that `trusted.ca` signed (@effect-http-resilience/conformance/redisTls);
   * `serveUntrusted` has it serve, to new connections, one that `untrusted.ca` signed.
   */
  readonly tls: { readonly port: number; readonly serveUntrusted: () => Promise<void> } | undefined
  /**
   * Stops the server (SIGTERM, SIGKILL after 10 s) and waits for it to exit, or only waits when it
   * is ending by itself. Does nothing when it is stopped already.
   */
  readonly stop: () => Promise<void>
  /** Kills the server at once (SIGKILL: no shutdown, as a crash or an OOM killer) and waits for it to exit. */
  readonly kill: () => Promise<void>
  /**
   * Starts the server again on the same port, with an empty dataset, and waits until it answers
   * PING. Fails when it is running, or when another process has taken the port meanwhile. A server
   * that has ended by itself (`SHUTDOWN`, a crash) counts as stopped; `stop` waits for that end.
   * `requirepass`: the server asks clients for this password (`command` gives it).
   */
  readonly start: (options?: { readonly requirepass?: string }) => Promise<void>
  /**
   * Sends one command, as the default user, on a connection of its own and gives the raw RESP reply: `"+PONG\r\n"`,
   * `"$5\r\nvalue\r\n"`, `":1\r\n"`. Fails on an error reply (`-ERR ...`), and when the server
   * is down or does not answer within 30 s.
   */
  readonly command: (...args: Array<string>) => Promise<string>
}

const installCommand = "apt-get install -y --no-install-recommends redis-server"
// Readiness, not timing: how long a started server may take to answer PING on a busy machine.
const readyWithin = 10_000
const retryEvery = 25
// After SIGTERM: past this, SIGKILL.
const stopWithin = 10_000
const commandWithin = 30_000
// A first start whose port was taken between finding it and binding it tries a new one.
const firstStartAttempts = 3

interface Running {
  readonly dir: string
  readonly watchdog: ChildProcess | undefined
}

/** The servers of this module that are running: killed when the process exits. */
const running = new Map<ChildProcess, Running>()
let exitHookInstalled = false
const installExitHook = (): void => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const [child, { dir, watchdog }] of running) {
      watchdog?.kill("SIGKILL")
      child.kill("SIGKILL")
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })
}

/**
 * Kills the server when this process dies without running its exit hook, as a vitest worker ended
 * by a signal does: a shell that waits for its stdin, a pipe from this process, to close (`read`
 * returns at end of file), then kills the server and removes its directory. Killed itself when
 * the server exits.
 */
const startWatchdog = (pid: number, dir: string): ChildProcess => {
  const watchdog = spawn(
    "sh",
    ["-c", 'read -r _ignored; kill -KILL "$1" 2>/dev/null; rm -rf "$2"', "redis-watchdog", String(pid), dir],
    { stdio: ["pipe", "ignore", "ignore"] }
  )
  // Without a shell the server still dies with the exit hook.
  watchdog.on("error", () => undefined)
  if (watchdog.stdin instanceof Net.Socket) watchdog.stdin.unref()
  watchdog.unref()
  return watchdog
}

class PortTaken extends Error {}

const describeExit = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal !== null ? `killed by ${signal}` : `exit code ${code}`

const isErrorCode = (error: unknown, code: string): boolean =>
  error instanceof Error && "code" in error && error.code === code

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

/** A port on 127.0.0.1 that no one listens on now: listen on port 0, read it, close. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (typeof address !== "object" || address === null) {
        server.close()
        reject(new Error("a server listening on 127.0.0.1 port 0 has no port"))
        return
      }
      server.close(() => resolve(address.port))
    })
  })

/** Fails, saying so, when another process listens on the port. */
const ensurePortFree = (port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", (error) =>
      reject(
        isErrorCode(error, "EADDRINUSE")
          ? new PortTaken(`redis-server cannot start again on 127.0.0.1:${port}: another process has taken the port`)
          : error
      )
    )
    server.listen(port, "127.0.0.1", () => server.close(() => resolve()))
  })

/** Where the reply starting at `start` ends, or `undefined` when it has not all arrived (RESP2). */
const replyEnd = (buffer: Buffer, start: number): number | undefined => {
  const lineEnd = buffer.indexOf("\r\n", start)
  if (lineEnd === -1) return undefined
  const header = buffer.toString("latin1", start + 1, lineEnd)
  const next = lineEnd + 2
  switch (buffer.toString("latin1", start, start + 1)) {
    case "$": {
      const length = Number(header)
      if (length < 0) return next
      return buffer.length >= next + length + 2 ? next + length + 2 : undefined
    }
    case "*": {
      let at: number | undefined = next
      for (let element = 0; element < Number(header) && at !== undefined; element++) at = replyEnd(buffer, at)
      return at
    }
    default:
      return next
  }
}

const encode = (args: ReadonlyArray<string>): string =>
  `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join("")}`

/**
 * Sends `payload` on a connection of its own and gives the first complete reply after `skip`
 * replies (an AUTH's).
 */
const exchange = (port: number, payload: string, what: string, skip = 0): Promise<string> =>
  new Promise((resolve, reject) => {
    let received = Buffer.alloc(0)
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      socket.destroy()
      outcome()
    }
    const socket = Net.connect({ host: "127.0.0.1", port })
    socket.setTimeout(commandWithin, () =>
      settle(() =>
        reject(new Error(`redis-server on 127.0.0.1:${port} did not answer ${what} within ${commandWithin / 1000} s`))
      )
    )
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk])
      let start: number | undefined = 0
      for (let skipped = 0; skipped < skip && start !== undefined; skipped++) start = replyEnd(received, start)
      const end = start === undefined ? undefined : replyEnd(received, start)
      if (start === undefined || end === undefined) return
      const reply = received.toString("utf8", start, end)
      settle(() =>
        reply.startsWith("-")
          ? reject(new Error(`redis-server on 127.0.0.1:${port} answered ${what} with an error: ${reply.trimEnd()}`))
          : resolve(reply)
      )
    })
    socket.once("error", (error) =>
      settle(() => reject(new Error(`${what} to redis-server on 127.0.0.1:${port} failed: ${error.message}`)))
    )
    socket.once("close", () =>
      settle(() =>
        reject(new Error(`redis-server on 127.0.0.1:${port} closed the connection before answering ${what}`))
      )
    )
    socket.write(payload)
  })

// With a password, AUTH goes first (its reply skipped: a wrong one makes the command fail NOAUTH).
const sendCommand = (port: number, args: ReadonlyArray<string>, password?: string): Promise<string> =>
  password === undefined
    ? exchange(port, encode(args), args.join(" "))
    : exchange(port, encode(["AUTH", password]) + encode(args), args.join(" "), 1)

/** A RESP2 reply, read: a simple string or bulk string, an integer, null, or an array of them. */
type Reply = string | number | null | ReadonlyArray<Reply>

const parseAt = (buffer: Buffer, start: number): readonly [Reply, number] => {
  const lineEnd = buffer.indexOf("\r\n", start)
  const header = buffer.toString("utf8", start + 1, lineEnd)
  const next = lineEnd + 2
  switch (buffer.toString("latin1", start, start + 1)) {
    case "$": {
      const length = Number(header)
      return length < 0 ? [null, next] : [buffer.toString("utf8", next, next + length), next + length + 2]
    }
    case "*": {
      const items: Array<Reply> = []
      let at = next
      for (let item = 0; item < Number(header); item++) {
        const [value, after] = parseAt(buffer, at)
        items.push(value)
        at = after
      }
      return [items, at]
    }
    case ":":
      return [Number(header), next]
    default:
      return [header, next]
  }
}

/** A raw RESP2 reply, read. */
export const parseReply = (raw: string): Reply => parseAt(Buffer.from(raw, "utf8"), 0)[0]

// node-redis sends CLIENT SETINFO on connecting and ignores a refusal (Redis 7.2 or later; 7.0
// does not know the command): the guide's ACL leaves it out.
const ignoredDenials = new Set(["client|setinfo"])

/**
 * What Redis refused the store's user (or `username`) since it started (`ACL LOG`): each entry's
 * reason, object and context, but the refusals of its password (a test that changes it) and of
 * what node-redis asks and needs not.
 */
export const storeUserDenials = async (
  port: number,
  password?: string,
  username: string = storeUser.username
): Promise<Array<string>> => {
  const log = parseReply(await sendCommand(port, ["ACL", "LOG", "128"], password))
  const entries = Array.isArray(log) ? log : []
  return entries.flatMap((entry: Reply) => {
    if (!Array.isArray(entry)) return []
    const fields = new Map<Reply, Reply>()
    for (let i = 0; i + 1 < entry.length; i += 2) fields.set(entry[i], entry[i + 1])
    const object = String(fields.get("object"))
    return fields.get("username") === username && fields.get("reason") !== "auth" && !ignoredDenials.has(object)
      ? [`${String(fields.get("reason"))} ${object} (${String(fields.get("context"))})`]
      : []
  })
}

/** Makes the store's user on a server from the guide's ACL line, for the prefixes `prefix` matches. */
const makeStoreUser = async (port: number, prefix = "*"): Promise<void> => {
  await sendCommand(port, aclFor(prefix))
}

interface Launched {
  readonly child: ChildProcess
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>
}

/**
 * Spawns redis-server on the port and waits until it answers PING; kills it if it never does.
 * `requirepass`: the server asks for this password; `more` gives arguments of its own, knowing
 * the server's directory.
 */
const launch = async (
  port: number,
  options: {
    readonly requirepass?: string | undefined
    readonly more?: ((dir: string) => ReadonlyArray<string>) | undefined
  } = {}
): Promise<Launched> => {
  const { requirepass } = options
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "redis-test-"))
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--protected-mode",
      "yes",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      // DEBUG SLEEP, for the slow-Redis tests; Redis 7 refuses DEBUG unless told, here from loopback only.
      "--enable-debug-command",
      "local",
      "--loglevel",
      "warning",
      ...(options.more?.(dir) ?? []),
      ...(requirepass === undefined ? [] : ["--requirepass", requirepass])
    ],
    { stdio: ["ignore", "pipe", "pipe"] }
  )
  // Its log (stdout, with no config file) and stderr, the end of it, for the error messages.
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-4000)
  }
  const log = () => (output.trim() === "" ? "" : `; its output:\n${output.trim()}`)
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on("data", keep)
    // A server a test forgot to stop keeps no process alive: the exit hook or the watchdog kills it.
    if (stream instanceof Net.Socket) stream.unref()
  }
  child.unref()
  const watchdog = child.pid === undefined ? undefined : startWatchdog(child.pid, dir)

  let gone = false
  const exited = new Promise<void>((resolve) => {
    const done = () => {
      gone = true
      watchdog?.kill("SIGKILL")
      running.delete(child)
      Fs.rmSync(dir, { recursive: true, force: true })
      resolve()
    }
    child.once("exit", done)
    child.once("error", done)
  })
  // Settles only with a failure: the process could not be spawned, or ended before it was ready.
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (error) =>
      reject(
        isErrorCode(error, "ENOENT")
          ? new Error(
              `redis-server is not installed (no redis-server on the PATH): the Redis tests start their own. Install Debian's package: ${installCommand}`
            )
          : new Error(`could not start redis-server: ${error.message}`)
      )
    )
    child.once("close", (code, signal) => {
      const message = `redis-server on 127.0.0.1:${port} ended (${describeExit(code, signal)}) before it was ready${log()}`
      reject(/Address already in use/i.test(output) ? new PortTaken(message) : new Error(message))
    })
  })
  failed.catch(() => undefined)
  running.set(child, { dir, watchdog })
  installExitHook()

  const ready = async (): Promise<void> => {
    const deadline = Date.now() + readyWithin
    while (!gone) {
      const pong = await sendCommand(port, ["PING"], requirepass).then(
        (reply) => reply.startsWith("+PONG"),
        () => false
      )
      if (pong) break
      if (Date.now() >= deadline) {
        throw new Error(`redis-server on 127.0.0.1:${port} did not answer PING within ${readyWithin / 1000} s${log()}`)
      }
      await sleep(retryEvery)
    }
    // Ended before it answered: `failed` says why.
    if (gone) await failed
    // The answer must be this server's, not another's that had the port.
    const info = await sendCommand(port, ["INFO", "server"], requirepass)
    const pid = /process_id:(\d+)/.exec(info)?.[1]
    if (pid !== String(child.pid)) {
      throw new PortTaken(
        `127.0.0.1:${port} is answered by another redis-server (process ${pid ?? "unknown"}), not the one started here`
      )
    }
  }
  try {
    await Promise.race([ready(), failed])
    return { child, exited }
  } catch (error) {
    child.kill("SIGKILL")
    await exited
    throw error
  }
}

/** Ends a server, SIGTERM (then SIGKILL after 10 s) or SIGKILL at once, and waits for its exit. */
const terminate = async (launched: Launched, signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> => {
  // Waiting for its exit keeps this process alive meanwhile.
  launched.child.ref()
  launched.child.kill(signal)
  const kill = signal === "SIGKILL" ? undefined : setTimeout(() => launched.child.kill("SIGKILL"), stopWithin)
  await launched.exited
  clearTimeout(kill)
}

// The arguments that serve TLS on `port` with the trusted certificate, written in the server's
// directory with the untrusted one (for `serveUntrusted`).
const tlsArguments = (port: number) => (dir: string) => {
  for (const [name, certificates] of [
    ["trusted", trusted],
    ["untrusted", untrusted]
  ] as const) {
    Fs.writeFileSync(Path.join(dir, `${name}-ca.crt`), certificates.ca)
    Fs.writeFileSync(Path.join(dir, `${name}.crt`), certificates.cert)
    Fs.writeFileSync(Path.join(dir, `${name}.key`), certificates.key, { mode: 0o600 })
  }
  return [
    "--tls-port",
    String(port),
    "--tls-cert-file",
    Path.join(dir, "trusted.crt"),
    "--tls-key-file",
    Path.join(dir, "trusted.key"),
    "--tls-ca-cert-file",
    Path.join(dir, "trusted-ca.crt"),
    "--tls-auth-clients",
    "no"
  ]
}

/**
 * Starts a redis-server on a free loopback port, with the store's user of docs/overload.md, and
 * waits until it answers PING (up to 10 s). `tls`: a second port speaks TLS ({@link RedisInstance}).
 * Fails when `redis-server` is not installed, saying how to install it.
 */
export const startRedis = async (options: { readonly tls?: boolean } = {}): Promise<RedisInstance> => {
  let port = 0
  const tlsPort = options.tls === true ? await freePort() : undefined
  const more = tlsPort === undefined ? undefined : tlsArguments(tlsPort)
  let current: Launched | undefined
  let password: string | undefined
  for (let attempt = 1; current === undefined; attempt++) {
    port = await freePort()
    try {
      current = await launch(port, { more })
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= firstStartAttempts) throw error
    }
  }
  await makeStoreUser(port)
  // SIGTERM (then SIGKILL after `stopWithin`), or SIGKILL at once; waits for the exit. A server
  // stopped, not killed, is asked first what it refused the store's user.
  const end = async (signal: "SIGTERM" | "SIGKILL"): Promise<void> => {
    const ending = current
    if (ending === undefined) return
    current = undefined
    const alive = ending.child.exitCode === null && ending.child.signalCode === null
    const denials = signal === "SIGTERM" && alive ? await storeUserDenials(port, password).catch(() => []) : []
    await terminate(ending, signal)
    if (denials.length > 0) {
      throw new Error(
        `Redis refused the store's user (docs/overload.md's ACL) what the store sent: ${denials.join("; ")}`
      )
    }
  }
  const start = async (startOptions?: { readonly requirepass?: string }): Promise<void> => {
    // A server that ended by itself (SHUTDOWN, a crash) counts as stopped.
    if (current !== undefined && current.child.exitCode === null && current.child.signalCode === null) {
      throw new Error(`redis-server on 127.0.0.1:${port} is running already`)
    }
    current = undefined
    await ensurePortFree(port)
    password = startOptions?.requirepass
    try {
      current = await launch(port, { requirepass: password, more })
    } catch (error) {
      if (error instanceof PortTaken) {
        throw new Error(`redis-server cannot start again on 127.0.0.1:${port}: the port is taken (${error.message})`)
      }
      throw error
    }
    // Asking for a password the stores lack: their user is not there either.
    if (password === undefined) await makeStoreUser(port)
  }
  const credentials = `${storeUser.username}:${storeUser.password}@`
  return {
    url: `redis://${credentials}127.0.0.1:${port}`,
    adminUrl: `redis://127.0.0.1:${port}`,
    port,
    tls:
      tlsPort === undefined
        ? undefined
        : {
            port: tlsPort,
            serveUntrusted: async () => {
              const reply = parseReply(await sendCommand(port, ["CONFIG", "GET", "dir"], password))
              const dir = Array.isArray(reply) ? String(reply[1]) : ""
              await sendCommand(
                port,
                [
                  "CONFIG",
                  "SET",
                  "tls-cert-file",
                  Path.join(dir, "untrusted.crt"),
                  "tls-key-file",
                  Path.join(dir, "untrusted.key"),
                  "tls-ca-cert-file",
                  Path.join(dir, "untrusted-ca.crt")
                ],
                password
              )
            }
          },
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
    start,
    command: (...args) => sendCommand(port, args, password)
  }
}

/** A Redis Cluster of three masters, started by {@link startRedisCluster}. */
export interface RedisClusterInstance {
  /**
   * Each master's `redis://127.0.0.1:<port>`, for node-redis' `createCluster({ rootNodes })`; with
   * `defaults: storeUser` (this module's), the cluster client is the store's least-privilege user.
   */
  readonly rootNodes: ReadonlyArray<{ readonly url: string }>
  /** The masters' ports, in the order of the slots they hold (0-5460, 5461-10922, 10923-16383). */
  readonly ports: ReadonlyArray<number>
  /**
   * Sends one command to the first master, following one `MOVED` to the master that holds the
   * command's key, and gives the raw RESP reply; fails on any other error reply.
   */
  readonly command: (...args: Array<string>) => Promise<string>
  /** Sends one command to the master on `port`: no redirection. */
  readonly commandOn: (port: number, ...args: Array<string>) => Promise<string>
  /** {@link commandOn} after `AUTH password`, for a master given a `requirepass`. */
  readonly commandAs: (password: string, port: number, ...args: Array<string>) => Promise<string>
  /**
   * Stops every master and waits for them to exit; fails then when a master refused the store's
   * user anything (`ACL LOG`), as {@link RedisInstance}'s `stop` does.
   */
  readonly stop: () => Promise<void>
}

const clusterSize = 3
const slots = 16_384
// Readiness: how long three fresh masters may take to meet and agree on the slots on a busy machine.
const clusterReadyWithin = 20_000

// A node's cluster bus listens on its port + 10000 (the default of every Redis version).
const busOffset = 10_000

/** A free port, not in `taken`, whose cluster bus port is free too. */
const freeClusterPort = async (taken: ReadonlySet<number>): Promise<number> => {
  for (;;) {
    const port = await freePort()
    if (port + busOffset > 65_535 || taken.has(port) || taken.has(port + busOffset)) continue
    const busFree = await ensurePortFree(port + busOffset).then(
      () => true,
      () => false
    )
    if (busFree) return port
  }
}

/**
 * Starts three redis-servers with cluster mode on (each on a free loopback port, its cluster bus
 * on that port + 10000, its nodes file in its own directory), gives each a third of the slots,
 * has them meet, and waits until every one says `cluster_state:ok` and knows the other two (up
 * to 20 s; a master turns writable 2 s after it started). What `redis-cli --cluster create` does,
 * over RESP. Fails as {@link startRedis} does when `redis-server` is missing.
 */
export const startRedisCluster = async (): Promise<RedisClusterInstance> => {
  const masters: Array<{ readonly port: number; readonly launched: Launched }> = []
  const stop = async (): Promise<void> => {
    const stopping = masters.splice(0)
    const denials = await Promise.all(stopping.map((master) => storeUserDenials(master.port).catch(() => [])))
    await Promise.all(stopping.map((master) => terminate(master.launched)))
    if (denials.flat().length > 0) {
      throw new Error(
        `Redis refused the store's user (docs/overload.md's ACL) what the store sent: ${denials.flat().join("; ")}`
      )
    }
  }
  try {
    const taken = new Set<number>()
    while (masters.length < clusterSize) {
      const port = await freeClusterPort(taken)
      try {
        const launched = await launch(port, {
          more: (dir) => ["--cluster-enabled", "yes", "--cluster-config-file", Path.join(dir, `nodes-${port}.conf`)]
        })
        masters.push({ port, launched })
        taken.add(port).add(port + busOffset)
      } catch (error) {
        // A port or its bus port taken between finding it and binding it: try others.
        if (!(error instanceof PortTaken)) throw error
      }
    }
    for (const [index, master] of masters.entries()) {
      const first = Math.floor((index * slots) / clusterSize)
      const last = Math.floor(((index + 1) * slots) / clusterSize) - 1
      const owned = Array.from({ length: last - first + 1 }, (_, offset) => String(first + offset))
      await sendCommand(master.port, ["CLUSTER", "ADDSLOTS", ...owned])
    }
    const [first, ...others] = masters
    for (const other of others) {
      await sendCommand(first!.port, ["CLUSTER", "MEET", "127.0.0.1", String(other.port)])
    }
    const deadline = Date.now() + clusterReadyWithin
    for (;;) {
      const infos = await Promise.all(masters.map((master) => sendCommand(master.port, ["CLUSTER", "INFO"])))
      const ready = infos.every(
        (info) => info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${clusterSize}`)
      )
      if (ready) break
      if (Date.now() >= deadline) {
        throw new Error(
          `a Redis Cluster on 127.0.0.1 ports ${masters.map((master) => master.port).join(", ")} was not ready within ${clusterReadyWithin / 1000} s: ${infos.map((info) => /cluster_state:\w+/.exec(info)?.[0]).join(", ")}`
        )
      }
      await sleep(retryEvery * 4)
    }
    for (const master of masters) await makeStoreUser(master.port)
  } catch (error) {
    await stop()
    throw error
  }
  const ports = masters.map((master) => master.port)
  const command = async (...args: Array<string>): Promise<string> => {
    try {
      return await sendCommand(ports[0]!, args)
    } catch (error) {
      const moved = error instanceof Error ? /-MOVED \d+ [^:\s]+:(\d+)/.exec(error.message) : null
      if (moved === null) throw error
      return sendCommand(Number(moved[1]), args)
    }
  }
  return {
    rootNodes: ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })),
    ports,
    command,
    commandOn: (port, ...args) => sendCommand(port, args),
    commandAs: (password, port, ...args) => sendCommand(port, args, password),
    stop
  }
}
