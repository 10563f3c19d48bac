/**
 * Hand-written SVG charts: throughput ratios as bars, contention as lines.
 */
import { backoffLabels, backoffModes, type ContentionCell } from "./contention.js"
import type { HappyPathResult } from "./happyPath.js"

const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const round1 = (value: number): string => (Math.round(value * 10) / 10).toString()

const palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948"]
const colour = (index: number): string => palette[index % palette.length]!

const document = (width: number, height: number, title: string, body: ReadonlyArray<string>): string =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    "</svg>",
    ""
  ].join("\n")

const text = (x: number, y: number, content: string, attributes = ""): string =>
  `<text x="${round1(x)}" y="${round1(y)}"${attributes === "" ? "" : ` ${attributes}`}>${escapeXml(content)}</text>`

const line = (x1: number, y1: number, x2: number, y2: number, attributes: string): string =>
  `<line x1="${round1(x1)}" y1="${round1(y1)}" x2="${round1(x2)}" y2="${round1(y2)}" ${attributes}/>`

/** The smallest of 1, 2, 2.5 and 5 times a power of ten that is at least `value`. */
const niceStep = (value: number): number => {
  if (!(value > 0)) return 1
  const magnitude = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5]) if (step * magnitude >= value) return step * magnitude
  return 10 * magnitude
}

/** Horizontal bars: each client's throughput relative to the bare Effect client of its line, per concurrency. */
export const throughputChart = (result: HappyPathResult): string => {
  const concurrencies = [...new Set(result.rows.map((row) => row.concurrency))]
  const labels = [...new Set(result.rows.map((row) => row.label))]
  const barHeight = 14
  const groupGap = 12
  // Room for the longest label at about 7 px a character (12 px sans-serif).
  const left = Math.max(190, 20 + 7 * Math.max(0, ...labels.map((label) => label.length)))
  const plotWidth = 460
  const top = 56
  const groupHeight = concurrencies.length * barHeight + groupGap
  const height = top + labels.length * groupHeight + 40
  const width = left + plotWidth + 90
  const maxRatio = Math.max(
    1.1,
    ...result.rows.map((row) => (Number.isFinite(row.ratioToEffect) ? row.ratioToEffect : 0))
  )
  const scale = (value: number) => left + (Math.max(0, value) / maxRatio) * plotWidth
  const body: Array<string> = [
    text(
      12,
      22,
      "Happy-path throughput relative to the bare Effect HttpClient of the same line (same undici transport)",
      'font-size="14" font-weight="bold"'
    ),
    text(12, 40, "median of same-round ratios; higher is faster; dashed lines at 1.0× and 0.97×", 'fill="#555555"')
  ]
  concurrencies.forEach((concurrency, index) => {
    const x = left + index * 110
    body.push(`<rect x="${x}" y="${top - 12}" width="10" height="10" fill="${colour(index)}"/>`)
    body.push(text(x + 14, top - 3, `concurrency ${concurrency}`))
  })
  labels.forEach((label, groupIndex) => {
    const groupTop = top + 6 + groupIndex * groupHeight
    body.push(text(left - 8, groupTop + (concurrencies.length * barHeight) / 2 + 4, label, 'text-anchor="end"'))
    concurrencies.forEach((concurrency, index) => {
      const row = result.rows.find((candidate) => candidate.label === label && candidate.concurrency === concurrency)
      const value = row?.ratioToEffect ?? Number.NaN
      const y = groupTop + index * barHeight
      if (!Number.isFinite(value)) return
      body.push(
        `<rect x="${left}" y="${y}" width="${round1(scale(value) - left)}" height="${barHeight - 2}" fill="${colour(index)}"><title>${escapeXml(`${label}, concurrency ${concurrency}: ${value.toFixed(2)}×`)}</title></rect>`
      )
      body.push(text(scale(value) + 4, y + barHeight - 4, `${value.toFixed(2)}×`, 'font-size="11"'))
    })
  })
  const bottom = top + labels.length * groupHeight + 6
  body.push(line(left, top, left, bottom, 'stroke="#333333"'))
  for (const reference of [1, 0.97]) {
    body.push(line(scale(reference), top, scale(reference), bottom, 'stroke="#999999" stroke-dasharray="4 3"'))
  }
  const tickStep = niceStep(maxRatio / 6)
  for (let tick = 0; tick <= maxRatio + 1e-9; tick += tickStep) {
    body.push(line(scale(tick), bottom, scale(tick), bottom + 4, 'stroke="#333333"'))
    body.push(text(scale(tick), bottom + 16, `${tick.toFixed(2)}×`, 'text-anchor="middle" font-size="10"'))
  }
  return document(width, height, "Happy-path throughput ratios", body)
}

interface Panel {
  readonly title: string
  readonly value: (cell: ContentionCell) => number
  readonly logarithmic: boolean
  readonly format: (value: number) => string
}

/** Lines per backoff mode: write calls, and time until all succeeded, against the number of clients. */
export const contentionChart = (cells: ReadonlyArray<ContentionCell>): string => {
  const counts = [...new Set(cells.map((cell) => cell.clients))].sort((a, b) => a - b)
  const modes = backoffModes.filter((mode) => cells.some((cell) => cell.mode === mode))
  const panelWidth = 360
  const panelHeight = 260
  const top = 60
  const lefts = [70, 70 + panelWidth + 90]
  const width = lefts[1]! + panelWidth + 30
  const legendTop = top + panelHeight + 50
  const height = legendTop + 24 * Math.ceil(modes.length / 3) + 10
  const panels: ReadonlyArray<Panel> = [
    {
      title: "Write calls until all have written",
      value: (cell) => cell.writeCalls,
      logarithmic: false,
      format: (value) => Math.round(value).toString()
    },
    {
      title: "Seconds until all have written (log scale)",
      value: (cell) => cell.completionMillis / 1000,
      logarithmic: true,
      format: (value) => (value >= 1 ? value.toFixed(0) : value.toFixed(1))
    }
  ]
  const body: Array<string> = [
    text(
      12,
      22,
      "Contention: N clients, one optimistic-concurrency write each (simulated, mean of seeded runs)",
      'font-size="14" font-weight="bold"'
    ),
    text(
      12,
      40,
      "waits from effect-http-resilience RetryPolicy: base 5 ms, cap 2 s; network N(10 ms, 2 ms) per message",
      'fill="#555555"'
    )
  ]
  const minCount = counts[0] ?? 0
  const maxCount = counts.at(-1) ?? 1
  panels.forEach((panel, panelIndex) => {
    const left = lefts[panelIndex]!
    const values = cells.map(panel.value).filter((value) => Number.isFinite(value) && value > 0)
    const maxValue = Math.max(...values, 1)
    const minValue = Math.min(...values, 1)
    const logLow = Math.floor(Math.log10(minValue))
    const logHigh = Math.ceil(Math.log10(maxValue))
    const linearStep = niceStep(maxValue / 5)
    const linearHigh = linearStep * Math.ceil(maxValue / linearStep)
    const y = (value: number) =>
      panel.logarithmic
        ? top +
          panelHeight -
          ((Math.log10(Math.max(value, 10 ** logLow)) - logLow) / Math.max(1, logHigh - logLow)) * panelHeight
        : top + panelHeight - (value / linearHigh) * panelHeight
    const x = (count: number) =>
      maxCount === minCount ? left + panelWidth / 2 : left + ((count - minCount) / (maxCount - minCount)) * panelWidth
    body.push(text(left, top - 8, panel.title, 'font-weight="bold"'))
    body.push(line(left, top, left, top + panelHeight, 'stroke="#333333"'))
    body.push(line(left, top + panelHeight, left + panelWidth, top + panelHeight, 'stroke="#333333"'))
    const ticks = panel.logarithmic
      ? Array.from({ length: logHigh - logLow + 1 }, (_, index) => 10 ** (logLow + index))
      : Array.from({ length: Math.round(linearHigh / linearStep) + 1 }, (_, index) => index * linearStep)
    for (const tick of ticks) {
      body.push(line(left, y(tick), left + panelWidth, y(tick), 'stroke="#e5e5e5"'))
      body.push(text(left - 6, y(tick) + 4, panel.format(tick), 'text-anchor="end" font-size="10"'))
    }
    for (const count of counts) {
      body.push(text(x(count), top + panelHeight + 16, `N=${count}`, 'text-anchor="middle" font-size="10"'))
    }
    body.push(text(left + panelWidth / 2, top + panelHeight + 32, "clients", 'text-anchor="middle" fill="#555555"'))
    modes.forEach((mode, modeIndex) => {
      const points = counts.flatMap((count) => {
        const cell = cells.find((candidate) => candidate.mode === mode && candidate.clients === count)
        return cell === undefined ? [] : [{ count, value: panel.value(cell) }]
      })
      const path = points.map((point) => `${round1(x(point.count))},${round1(y(point.value))}`).join(" ")
      body.push(
        `<polyline points="${path}" fill="none" stroke="${colour(modeIndex)}" stroke-width="2"><title>${escapeXml(backoffLabels[mode])}</title></polyline>`
      )
      for (const point of points) {
        body.push(
          `<circle cx="${round1(x(point.count))}" cy="${round1(y(point.value))}" r="3" fill="${colour(modeIndex)}"><title>${escapeXml(`${backoffLabels[mode]}, N=${point.count}: ${panel.format(point.value)}`)}</title></circle>`
        )
      }
    })
  })
  modes.forEach((mode, index) => {
    const x = 70 + (index % 3) * 230
    const y = legendTop + Math.floor(index / 3) * 24
    body.push(line(x, y - 4, x + 24, y - 4, `stroke="${colour(index)}" stroke-width="2"`))
    body.push(text(x + 30, y, backoffLabels[mode]))
  })
  return document(width, height, "Contention simulator", body)
}
