// What a V8 heap snapshot holds, by constructor: the objects, their own bytes, and the bytes they
// keep alive (retained: what would be freed with them, from the dominator tree, weak references
// not counted), and with a second snapshot, what grew between the two. Written to find what many
// origins hold (issue #32); `test/slow/manyOrigins.test.ts` writes the snapshots it reads when
// HEAP_SNAPSHOT_DIR is set (docs/development.md says how).
//
// usage: tsx scripts/heap-retainers.ts AFTER.heapsnapshot [BEFORE.heapsnapshot] [--top N] [--path LABEL]
// (--path: how the objects of one label, `closure:onSuccess` say, are held, by dominator chain)
import { readFileSync } from "node:fs"

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: ReadonlyArray<string>
      readonly node_types: ReadonlyArray<ReadonlyArray<string> | string>
      readonly edge_fields: ReadonlyArray<string>
      readonly edge_types: ReadonlyArray<ReadonlyArray<string> | string>
    }
    readonly node_count: number
  }
  readonly nodes: ReadonlyArray<number>
  readonly edges: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
}

interface Graph {
  readonly count: number
  /** `type:name` of each node: `object:Map`, `string`, `closure:run`, `array`, ... */
  readonly label: ReadonlyArray<string>
  readonly selfSize: Float64Array
  /** Strong edges, as a CSR: the targets of node i are targets[firstEdge[i] .. firstEdge[i + 1]). */
  readonly firstEdge: Uint32Array
  readonly targets: Uint32Array
}

const load = (path: string): Graph => {
  const raw: Snapshot = JSON.parse(readFileSync(path, "utf8"))
  const meta = raw.snapshot.meta
  const nodeFieldCount = meta.node_fields.length
  const edgeFieldCount = meta.edge_fields.length
  const nodeTypes = meta.node_types[0]
  const edgeTypes = meta.edge_types[0]
  if (!Array.isArray(nodeTypes) || !Array.isArray(edgeTypes)) throw new Error(`${path}: not a V8 heap snapshot`)
  const typeAt = meta.node_fields.indexOf("type")
  const nameAt = meta.node_fields.indexOf("name")
  const sizeAt = meta.node_fields.indexOf("self_size")
  const edgeCountAt = meta.node_fields.indexOf("edge_count")
  const edgeTypeAt = meta.edge_fields.indexOf("type")
  const toNodeAt = meta.edge_fields.indexOf("to_node")
  const weak = edgeTypes.indexOf("weak")
  const count = raw.nodes.length / nodeFieldCount
  const label: Array<string> = new Array(count)
  const selfSize = new Float64Array(count)
  const firstEdge = new Uint32Array(count + 1)
  const strong: Array<number> = []
  let edge = 0
  for (let node = 0; node < count; node++) {
    const base = node * nodeFieldCount
    const type = String(nodeTypes[raw.nodes[base + typeAt] ?? 0])
    const name = raw.strings[raw.nodes[base + nameAt] ?? 0] ?? ""
    // Strings, numbers and code are counted by kind; objects, closures and the rest by name.
    label[node] =
      type === "string" || type === "concatenated string" || type === "sliced string" || type === "number"
        ? type
        : `${type}:${name.length > 60 ? `${name.slice(0, 57)}...` : name}`
    selfSize[node] = raw.nodes[base + sizeAt] ?? 0
    firstEdge[node] = strong.length
    const edges = raw.nodes[base + edgeCountAt] ?? 0
    for (let i = 0; i < edges; i++, edge++) {
      const edgeBase = edge * edgeFieldCount
      if (raw.edges[edgeBase + edgeTypeAt] === weak) continue
      strong.push((raw.edges[edgeBase + toNodeAt] ?? 0) / nodeFieldCount)
    }
  }
  firstEdge[count] = strong.length
  return { count, label, selfSize, firstEdge, targets: Uint32Array.from(strong) }
}

// Immediate dominators from node 0 (the snapshot's root), by Cooper, Harvey and Kennedy's
// iteration over a reverse postorder; then retained sizes, children before their dominators.
const retainedSizes = (graph: Graph): { readonly retained: Float64Array; readonly dominator: Int32Array } => {
  const { count, firstEdge, targets } = graph
  const order = new Int32Array(count).fill(-1) // reverse postorder number
  const postorder: Array<number> = []
  const visited = new Uint8Array(count)
  const stack: Array<number> = [0]
  const cursor = new Uint32Array(count)
  visited[0] = 1
  cursor[0] = firstEdge[0] ?? 0
  while (stack.length > 0) {
    const node = stack[stack.length - 1] ?? 0
    const end = firstEdge[node + 1] ?? 0
    const at = cursor[node] ?? 0
    if (at < end) {
      cursor[node] = at + 1
      const next = targets[at] ?? 0
      if (!visited[next]) {
        visited[next] = 1
        cursor[next] = firstEdge[next] ?? 0
        stack.push(next)
      }
    } else {
      stack.pop()
      postorder.push(node)
    }
  }
  const reachable = postorder.length
  for (let i = 0; i < reachable; i++) order[postorder[i] ?? 0] = reachable - 1 - i
  const predecessors: Array<Array<number>> = Array.from({ length: count }, () => [])
  for (let node = 0; node < count; node++) {
    if (order[node] === -1) continue
    for (let e = firstEdge[node] ?? 0; e < (firstEdge[node + 1] ?? 0); e++) predecessors[targets[e] ?? 0]?.push(node)
  }
  const dominator = new Int32Array(count).fill(-1)
  dominator[0] = 0
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while ((order[a] ?? 0) > (order[b] ?? 0)) a = dominator[a] ?? 0
      while ((order[b] ?? 0) > (order[a] ?? 0)) b = dominator[b] ?? 0
    }
    return a
  }
  for (let changed = true; changed; ) {
    changed = false
    for (let i = reachable - 2; i >= 0; i--) {
      const node = postorder[i] ?? 0
      let candidate = -1
      for (const predecessor of predecessors[node] ?? []) {
        if (dominator[predecessor] === -1) continue
        candidate = candidate === -1 ? predecessor : intersect(predecessor, candidate)
      }
      if (candidate !== -1 && dominator[node] !== candidate) {
        dominator[node] = candidate
        changed = true
      }
    }
  }
  const retained = Float64Array.from(graph.selfSize)
  for (const node of postorder) {
    if (node !== 0) retained[dominator[node] ?? 0] = (retained[dominator[node] ?? 0] ?? 0) + (retained[node] ?? 0)
  }
  return { retained, dominator }
}

interface Totals {
  count: number
  self: number
  /** Retained by the objects of this label that no object of the same label dominates. */
  retained: number
}

const byLabel = (graph: Graph, retained?: Float64Array, dominator?: Int32Array): Map<string, Totals> => {
  const totals = new Map<string, Totals>()
  for (let node = 0; node < graph.count; node++) {
    if (dominator !== undefined && dominator[node] === -1) continue // unreachable: garbage
    const label = graph.label[node] ?? ""
    const total = totals.get(label) ?? { count: 0, self: 0, retained: 0 }
    total.count++
    total.self += graph.selfSize[node] ?? 0
    const top = dominator === undefined || graph.label[dominator[node] ?? 0] !== label
    if (retained !== undefined && top) total.retained += retained[node] ?? 0
    totals.set(label, total)
  }
  return totals
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(2)

const flagValues = new Set(["--top", "--path"].map((flag) => process.argv[process.argv.indexOf(flag) + 1]))
const [afterPath, beforePath] = process.argv
  .slice(2)
  .filter((arg, i, args) => !arg.startsWith("--") && !(flagValues.has(arg) && args[i - 1]?.startsWith("--")))
const topAt = process.argv.indexOf("--top")
const top = topAt === -1 ? 25 : Number(process.argv[topAt + 1])
if (afterPath === undefined) {
  console.error(
    "usage: tsx scripts/heap-retainers.ts AFTER.heapsnapshot [BEFORE.heapsnapshot] [--top N] [--path LABEL]"
  )
  process.exit(2)
}

const after = load(afterPath)
const { retained, dominator } = retainedSizes(after)
const afterTotals = byLabel(after, retained, dominator)
const live = [...afterTotals.values()].reduce((sum, total) => sum + total.self, 0)
console.log(`${afterPath}: ${after.count} nodes, ${mib(live)} MiB reachable`)
console.log(`\nLargest retainers by constructor (MiB retained, MiB own, objects):`)
for (const [label, total] of [...afterTotals].sort((a, b) => b[1].retained - a[1].retained).slice(0, top)) {
  console.log(
    `  ${mib(total.retained).padStart(8)} ${mib(total.self).padStart(8)} ${String(total.count).padStart(9)}  ${label}`
  )
}
// --path LABEL: how the largest objects of a label are held, up the dominator tree to the root.
const pathAt = process.argv.indexOf("--path")
const pathLabel = pathAt === -1 ? undefined : process.argv[pathAt + 1]
if (pathLabel !== undefined) {
  const holders = new Map<string, number>()
  for (let node = 0; node < after.count; node++) {
    if (after.label[node] !== pathLabel || dominator[node] === -1) continue
    const chain: Array<string> = []
    for (let at = dominator[node] ?? 0, depth = 0; at !== 0 && depth < 12; at = dominator[at] ?? 0, depth++) {
      chain.push(after.label[at] ?? "")
    }
    const key = chain.join(" <- ")
    holders.set(key, (holders.get(key) ?? 0) + 1)
  }
  console.log(`\nHow ${pathLabel} is held (objects, dominator chain):`)
  for (const [chain, objects] of [...holders].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${String(objects).padStart(7)}  ${chain}`)
  }
}
if (beforePath !== undefined) {
  const before = load(beforePath)
  const { dominator: beforeDominator } = retainedSizes(before)
  const beforeTotals = byLabel(before, undefined, beforeDominator)
  const grown = [...afterTotals].map(([label, total]) => {
    const was = beforeTotals.get(label) ?? { count: 0, self: 0, retained: 0 }
    return { label, bytes: total.self - was.self, objects: total.count - was.count }
  })
  const beforeLive = [...beforeTotals.values()].reduce((sum, total) => sum + total.self, 0)
  console.log(`\nGrown since ${beforePath} (${mib(beforeLive)} MiB reachable): ${mib(live - beforeLive)} MiB`)
  console.log(`  own MiB, objects, by constructor:`)
  for (const row of grown.sort((a, b) => b.bytes - a.bytes).slice(0, top)) {
    console.log(`  ${mib(row.bytes).padStart(8)} ${String(row.objects).padStart(9)}  ${row.label}`)
  }
}
