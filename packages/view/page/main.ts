/**
 * The page of `bills view`: reads the JSON interface under /api/ and draws the overview, the
 * balance chart (uPlot), the bills table, the downloads and the events. The filters live in the
 * URL, so a view can be bookmarked; every refusal of the server is shown in the alert line.
 */
import uPlot from "uplot"

interface KindRow {
  readonly kind: string
  readonly bills: number
  readonly coveredFrom: string | null
  readonly lastSynced: string | null
  readonly unfinished: boolean
  readonly agedOut: ReadonlyArray<{ readonly from: string; readonly to: string }>
}
interface CoinRow {
  readonly kind: string
  readonly coin: string
  readonly coinId: number | null
  readonly bills: number
  readonly firstTime: string
  readonly lastTime: string
  readonly lastBalance: string
  readonly lastBillId: string
}
interface Overview {
  readonly store: string
  readonly accounts: ReadonlyArray<{ readonly id: string; readonly label: string | null }>
  readonly account: string
  readonly kinds: ReadonlyArray<KindRow>
  readonly coins: ReadonlyArray<CoinRow>
}
interface Balances {
  readonly coin: string
  readonly from: string
  readonly to: string
  readonly series: ReadonlyArray<{
    readonly kind: string
    readonly bills: number
    readonly downsampled: boolean
    readonly points: ReadonlyArray<readonly [number, number]>
  }>
}
interface BillRow {
  readonly kind: string
  readonly billId: string
  readonly time: string
  readonly coin: string
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
}
interface Audit {
  readonly whole: boolean
  readonly coins: ReadonlyArray<{
    readonly kind: string
    readonly coin: string
    readonly bills: number
    readonly whole: boolean
  }>
  readonly gaps: ReadonlyArray<{ readonly text: string; readonly what: string }>
}
interface Events {
  readonly bills: number
  readonly total: number
  readonly kinds: Readonly<Record<string, number>>
  readonly flagged: number
  readonly conserved: boolean
  readonly events: ReadonlyArray<{
    readonly kind: string
    readonly time: string
    readonly text: string
    readonly bills: ReadonlyArray<string>
    readonly flagged: boolean
  }>
  readonly truncated: boolean
}

const filterNames = ["kind", "coin", "bizType", "from", "to"] as const
const formats = ["ndjson", "csv", "koinly", "cointracking", "bittytax", "hledger", "ledger", "beancount"] as const
/** The formats built on events need every coin and business type (a trade has two coins). */
const eventFormats = new Set(["koinly", "cointracking", "bittytax", "hledger", "ledger", "beancount"])
const kindColours: Readonly<Record<string, string>> = { funding: "#2456c7", spot: "#d9822b", contract: "#1b7a3d" }
const pageSize = 50

const element = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`the page has no #${id}`)
  return found as T
}

const make = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  attributes: Readonly<Record<string, string>> = {}
): HTMLElementTagNameMap[K] => {
  const made = document.createElement(tag)
  if (text !== undefined) made.textContent = text
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value)
  return made
}

const when = (isoTime: string | null) => (isoTime === null ? "—" : isoTime.replace("T", " ").replace(/\.000Z$|Z$/, ""))

/** The bad request's reason, or the failure, in the alert line; cleared by the next success. */
const errorLine = element<HTMLParagraphElement>("error")
const showError = (message: string) => {
  errorLine.textContent = message
  errorLine.hidden = false
}
const clearError = () => {
  errorLine.hidden = true
  errorLine.textContent = ""
}

class Refused extends Error {}

const api = async <A>(path: string, params: URLSearchParams): Promise<A> => {
  const query = params.toString()
  const response = await fetch(query === "" ? path : `${path}?${query}`, { headers: { accept: "application/json" } })
  if (!response.ok) {
    const body = (await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }))) as {
      readonly error?: string
    }
    const message = body.error ?? `${response.status} ${response.statusText}`
    showError(message)
    throw new Refused(message)
  }
  return (await response.json()) as A
}

// ---- the filters, in the URL ----

const form = element<HTMLFormElement>("filters")
const fields: Readonly<Record<(typeof filterNames)[number], HTMLInputElement | HTMLSelectElement>> = {
  kind: element("f-kind"),
  coin: element("f-coin"),
  bizType: element("f-bizType"),
  from: element("f-from"),
  to: element("f-to")
}
const accountSelect = element<HTMLSelectElement>("account")

/** The URL's parameters that are filters (and the account). */
const urlFilters = (): URLSearchParams => {
  const url = new URLSearchParams(location.search)
  const kept = new URLSearchParams()
  for (const name of ["account", ...filterNames]) {
    const value = url.get(name)
    if (value !== null && value !== "") kept.set(name, value)
  }
  return kept
}

const fillForm = (filters: URLSearchParams) => {
  for (const name of filterNames) {
    const field = fields[name]
    const value = filters.get(name) ?? ""
    if (field instanceof HTMLSelectElement && value !== "" && ![...field.options].some((o) => o.value === value)) {
      field.append(make("option", value, { value }))
    }
    field.value = value
  }
}

const formFilters = (): URLSearchParams => {
  const filters = new URLSearchParams()
  const account = urlFilters().get("account")
  if (account !== null) filters.set("account", account)
  for (const name of filterNames) {
    const value = fields[name].value.trim()
    if (value !== "") filters.set(name, value)
  }
  return filters
}

const windowOf = (filters: URLSearchParams) => {
  const window = new URLSearchParams()
  for (const name of ["account", "from", "to"]) {
    const value = filters.get(name)
    if (value !== null) window.set(name, value)
  }
  return window
}

// ---- the overview and the audit ----

let overview: Overview | undefined

const renderOverview = (data: Overview) => {
  element("store").textContent = data.store
  accountSelect.replaceChildren(
    ...data.accounts.map((account) => {
      const option = make("option", account.label ?? account.id, { value: account.id })
      option.selected = account.id === data.account
      return option
    })
  )
  element("kinds").replaceChildren(
    ...data.kinds.map((kind) => {
      const card = make("div", undefined, { class: "kind", "data-kind": kind.kind })
      card.append(make("strong", kind.kind === "contract" ? "futures (contract)" : kind.kind))
      card.append(make("span", `${kind.bills.toLocaleString("en-US")} bills`))
      card.append(make("br"))
      card.append(
        make(
          "span",
          kind.lastSynced === null
            ? "no sync has finished"
            : `last synced up to ${when(kind.lastSynced)}${kind.unfinished ? " (a sync is under way or unfinished)" : ""}`,
          { class: kind.unfinished || kind.lastSynced === null ? "gap" : "muted" }
        )
      )
      for (const gap of kind.agedOut) {
        card.append(make("br"))
        card.append(make("span", `aged out: ${when(gap.from)} to ${when(gap.to)}`, { class: "gap" }))
      }
      return card
    })
  )
  element("overview")
    .querySelector("tbody")
    ?.replaceChildren(
      ...data.coins.map((coin) => {
        const row = make("tr", undefined, { "data-kind": coin.kind, "data-coin": coin.coin })
        row.append(
          make("td", coin.kind),
          make("td", coin.coin),
          make("td", coin.bills.toLocaleString("en-US"), { class: "num" }),
          make("td", when(coin.firstTime)),
          make("td", when(coin.lastTime)),
          make("td", coin.lastBalance, {
            class: "num balance",
            "data-balance": coin.lastBalance,
            title: `bill ${coin.lastBillId}`
          })
        )
        return row
      })
    )
  const coins = [...new Set(data.coins.map((coin) => coin.coin))].sort()
  const coinSelect = fields.coin as HTMLSelectElement
  const chosen = coinSelect.value
  coinSelect.replaceChildren(
    make("option", "every coin", { value: "" }),
    ...coins.map((coin) => make("option", coin, { value: coin }))
  )
  coinSelect.value = coins.includes(chosen) || chosen === "" ? chosen : ""
  fillForm(urlFilters())
}

const renderAudit = (audit: Audit) => {
  const box = element("audit")
  const verdict = audit.whole
    ? make(
        "p",
        `Audit: whole. Every balance chain holds (${audit.coins.length} kind and coin chains), nothing aged out, no sync unfinished.`,
        { class: "whole" }
      )
    : make("p", `Audit: ${audit.gaps.length} gap${audit.gaps.length === 1 ? "" : "s"} found.`, { class: "gap" })
  const list = make("ul")
  for (const gap of audit.gaps) list.append(make("li", gap.text, { class: "gap", "data-what": gap.what }))
  box.replaceChildren(verdict, ...(audit.gaps.length > 0 ? [list] : []))
}

const loadOverview = async () => {
  const filters = urlFilters()
  const account = new URLSearchParams()
  const chosen = filters.get("account")
  if (chosen !== null) account.set("account", chosen)
  overview = await api<Overview>("/api/accounts", account)
  renderOverview(overview)
  requestAnimationFrame(() => performance.mark("overview-painted"))
  const bills = overview.kinds.reduce((sum, kind) => sum + kind.bills, 0)
  if (bills <= auditAtOnce) {
    loadAudit(account)
    return
  }
  // The chain audit reads every bill, as `bills audit --db` does: for a big store, on request.
  const ask = make("button", "Audit every balance chain", { type: "button", id: "audit-run" })
  ask.addEventListener("click", () => loadAudit(account))
  element("audit").replaceChildren(
    make(
      "p",
      `The balance chains of ${bills.toLocaleString("en-US")} bills are audited on request: the audit reads every bill, as bills audit --db does.`,
      { class: "muted" }
    ),
    ask
  )
}

/** Up to this many bills, the page audits the chains as it opens. */
const auditAtOnce = 200_000

const loadAudit = (account: URLSearchParams) => {
  element("audit").replaceChildren(make("p", "Auditing the balance chains…", { class: "muted" }))
  api<Audit>("/api/audit", account).then(renderAudit, (error: unknown) => {
    element("audit").replaceChildren(
      make("p", `Audit failed: ${String(error instanceof Error ? error.message : error)}`, { class: "gap" })
    )
  })
}

// ---- the chart ----

let chart: uPlot | undefined
let chartCoin: string | undefined

/** The series on one time axis: each kind's points, null where another kind has a point. */
const aligned = (balances: Balances): uPlot.AlignedData => {
  const times = [...new Set(balances.series.flatMap((series) => series.points.map((point) => point[0])))].sort(
    (a, b) => a - b
  )
  const index = new Map(times.map((time, i) => [time, i]))
  const columns = balances.series.map(() => new Array<number | null>(times.length).fill(null))
  balances.series.forEach((series, s) => {
    const column = columns[s] as Array<number | null>
    // Two points of one bucket share a time: the line goes through both (low, then high).
    for (const [time, value] of series.points) column[index.get(time) as number] = value
  })
  return [times.map((time) => time / 1000), ...columns]
}

const drawChart = (balances: Balances) => {
  const box = element("chart")
  const data = aligned(balances)
  const notes = balances.series.map(
    (series) =>
      `${series.kind}: ${series.bills.toLocaleString("en-US")} bills${series.downsampled ? `, ${series.points.length} points (lowest and highest per bucket)` : ""}`
  )
  element("chart-coin").textContent = `· ${balances.coin}`
  element("chart-note").textContent =
    `The balance each bill reports (afterAmount / balance), one line per kind; ${notes.join("; ")}. Drag to zoom, double-click to reset.`
  chart?.destroy()
  const width = Math.max(320, box.clientWidth || 900)
  chart = new uPlot(
    {
      width,
      height: 300,
      scales: { x: { time: true } },
      cursor: { drag: { x: true, y: false, setScale: false } },
      series: [
        {},
        ...balances.series.map((series) => ({
          label: series.kind,
          stroke: kindColours[series.kind] ?? "#555",
          width: 1.25,
          spanGaps: true,
          points: { show: false }
        }))
      ],
      axes: [{}, { size: 96 }],
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 3) return
            const from = Math.floor(u.posToVal(u.select.left, "x") * 1000)
            const to = Math.ceil(u.posToVal(u.select.left + u.select.width, "x") * 1000)
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
            void loadChart(balances.coin, { from, to })
          }
        ]
      }
    },
    data,
    box
  )
  chart.over.addEventListener("dblclick", () => void loadChart(balances.coin))
  requestAnimationFrame(() => performance.mark("chart-drawn"))
}

const loadChart = async (coin: string, zoom?: { readonly from: number; readonly to: number }) => {
  chartCoin = coin
  const params = windowOf(urlFilters())
  params.set("coin", coin)
  if (zoom !== undefined) {
    params.set("from", String(zoom.from))
    params.set("to", String(zoom.to))
  }
  const balances = await api<Balances>("/api/balances", params)
  if (chartCoin === coin) drawChart(balances)
}

// ---- the bills ----

let cursors: Array<string | undefined> = [undefined]
let nextCursor: string | null = null

const showRaw = async (kind: string, billId: string) => {
  const params = new URLSearchParams({ kind, id: billId })
  const account = urlFilters().get("account")
  if (account !== null) params.set("account", account)
  const raw = await api<unknown>("/api/bill", params)
  element("raw-title").textContent = `Raw record: ${kind} bill ${billId}, as the exchange sent it`
  element("raw-body").textContent = JSON.stringify(raw, null, 2)
  element("raw").hidden = false
  element("raw-close").focus()
}

const renderBills = (bills: ReadonlyArray<BillRow>) => {
  element("bills")
    .querySelector("tbody")
    ?.replaceChildren(
      ...bills.map((bill) => {
        const row = make("tr", undefined, { "data-bill": bill.billId, "data-kind": bill.kind })
        const open = make("button", bill.billId, { type: "button", class: "link", title: "open the raw record" })
        open.addEventListener("click", (event) => {
          event.stopPropagation()
          void showRaw(bill.kind, bill.billId)
        })
        const idCell = make("td")
        idCell.append(open)
        row.append(
          make("td", when(bill.time)),
          make("td", bill.kind),
          make("td", bill.coin),
          make("td", bill.bizType),
          make("td", bill.deltaAmount, { class: "num" }),
          make("td", bill.afterAmount, { class: "num" }),
          make("td", bill.fees, { class: "num" }),
          idCell
        )
        row.addEventListener("click", () => void showRaw(bill.kind, bill.billId))
        return row
      })
    )
}

const loadBills = async (page: number) => {
  const params = urlFilters()
  const cursor = cursors[page]
  if (cursor !== undefined) params.set("after", cursor)
  params.set("limit", String(pageSize))
  const answer = await api<{ readonly bills: ReadonlyArray<BillRow>; readonly next: string | null }>(
    "/api/bills",
    params
  )
  cursors = cursors.slice(0, page + 1)
  nextCursor = answer.next
  if (answer.next !== null) cursors[page + 1] = answer.next
  renderBills(answer.bills)
  element<HTMLButtonElement>("p-first").disabled = page === 0
  element<HTMLButtonElement>("p-prev").disabled = page === 0
  element<HTMLButtonElement>("p-next").disabled = answer.next === null
  element("p-status").textContent =
    answer.bills.length === 0
      ? "no bills match the filters"
      : `page ${page + 1}, ${answer.bills.length} bills, newest first`
  currentPage = page
  requestAnimationFrame(() => performance.mark("bills-rendered"))
}
let currentPage = 0

// ---- the downloads ----

const renderDownloads = (filters: URLSearchParams) => {
  const args = ["bills export --db", shellWord(overview?.store ?? "STORE")]
  const account = overview?.accounts.find((row) => row.id === (filters.get("account") ?? overview?.account))
  if (account?.label !== null && account?.label !== undefined && (overview?.accounts.length ?? 0) > 1)
    args.push("--label", shellWord(account.label))
  args.push("--account", filters.get("kind") ?? "all")
  const coin = filters.get("coin")
  if (coin !== null) {
    const id = overview?.coins.find((row) => row.coin === coin && row.coinId !== null)?.coinId
    args.push("--coin-id", id === undefined || id === null ? "?" : String(id))
  }
  if (filters.get("bizType") !== null) args.push("--biz-type", shellWord(filters.get("bizType") ?? ""))
  if (filters.get("from") !== null) args.push("--from", shellWord(filters.get("from") ?? ""))
  if (filters.get("to") !== null) args.push("--to", shellWord(filters.get("to") ?? ""))
  element("export-command").textContent = `${args.join(" ")} --format FORMAT`
  // The export's --coin-id names a coin of funding and spot: the futures bills shown are not in it.
  const kind = filters.get("kind")
  element("downloads-note").textContent =
    coin !== null && kind !== "funding" && kind !== "spot"
      ? kind === "contract"
        ? "The futures account's bills name assets, not coin ids: bills export cannot filter them by coin, so there is nothing to download; choose every coin."
        : "bills export --coin-id names a coin of the funding and spot accounts: the futures bills the table shows are left out of the download."
      : ""
  const narrowed = filters.get("coin") !== null || filters.get("bizType") !== null
  element("downloads").replaceChildren(
    ...formats.map((format) => {
      const item = make("li")
      if (eventFormats.has(format) && narrowed) {
        item.append(make("span", `${format}: needs every coin and business type`, { class: "off" }))
        return item
      }
      const params = new URLSearchParams(filters)
      params.set("format", format)
      item.append(make("a", format, { href: `/download?${params.toString()}`, download: "", id: `download-${format}` }))
      return item
    })
  )
}

const shellWord = (word: string) => (/^[A-Za-z0-9_./:@=+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`)

// ---- the events ----

const loadEvents = async () => {
  const box = element("events")
  box.replaceChildren(make("p", "Reading the events…", { class: "muted" }))
  const events = await api<Events>("/api/events", windowOf(urlFilters()))
  const kinds = make("p", undefined, { class: "events-kinds" })
  for (const [kind, count] of Object.entries(events.kinds))
    kinds.append(make("span", `${kind}: ${count.toLocaleString("en-US")}`))
  const summary = make(
    "p",
    `${events.total.toLocaleString("en-US")} events from ${events.bills.toLocaleString("en-US")} bills; ${events.flagged} flagged; balance changes ${events.conserved ? "conserved for every coin" : "NOT conserved"}${events.truncated ? `; the newest ${events.events.length} listed` : ""}.`,
    { class: events.flagged === 0 && events.conserved ? "whole" : "gap" }
  )
  const table = make("table")
  const head = make("thead")
  const headRow = make("tr")
  for (const title of ["Time (UTC)", "Event", "What", "Bills"]) headRow.append(make("th", title))
  head.append(headRow)
  const body = make("tbody")
  for (const event of events.events) {
    const row = make("tr", undefined, event.flagged ? { class: "flagged" } : {})
    row.append(
      make("td", when(event.time)),
      make("td", event.kind),
      make("td", event.text),
      make("td", event.bills.join(", "))
    )
    body.append(row)
  }
  table.append(head, body)
  box.replaceChildren(summary, kinds, table)
}

// ---- wiring ----

const refresh = async () => {
  const filters = urlFilters()
  fillForm(filters)
  // The overview's rows of the chosen kind and coin stand out.
  for (const row of element("overview").querySelectorAll("tbody tr")) {
    const kind = filters.get("kind")
    const coin = filters.get("coin")
    const chosen =
      (kind !== null || coin !== null) &&
      (kind === null || row.getAttribute("data-kind") === kind) &&
      (coin === null || row.getAttribute("data-coin") === coin)
    row.classList.toggle("chosen", chosen)
  }
  renderDownloads(filters)
  const coin = filters.get("coin") ?? overview?.coins[0]?.coin
  // The chart shows every kind of its coin: a change of kind or business type leaves it as drawn.
  const chartKey = JSON.stringify([coin, filters.get("account"), filters.get("from"), filters.get("to")])
  const redraw = coin !== undefined && chartKey !== drawnChart
  drawnChart = chartKey
  await Promise.all([loadBills(0), redraw ? loadChart(coin) : Promise.resolve()])
  clearError()
}

let drawnChart: string | undefined

const guarded = (run: () => Promise<void>) => () => {
  run().catch((error: unknown) => {
    if (!(error instanceof Refused)) showError(String(error instanceof Error ? error.message : error))
  })
}

form.addEventListener("submit", (event) => {
  event.preventDefault()
  const filters = formFilters()
  const query = filters.toString()
  history.pushState(null, "", query === "" ? location.pathname : `?${query}`)
  cursors = [undefined]
  guarded(refresh)()
})
element("f-clear").addEventListener("click", () => {
  for (const name of filterNames) fields[name].value = ""
  form.requestSubmit()
})
accountSelect.addEventListener("change", () => {
  const filters = new URLSearchParams({ account: accountSelect.value })
  history.pushState(null, "", `?${filters.toString()}`)
  cursors = [undefined]
  guarded(async () => {
    await loadOverview()
    await refresh()
  })()
})
element("p-first").addEventListener(
  "click",
  guarded(() => loadBills(0))
)
element("p-prev").addEventListener(
  "click",
  guarded(() => loadBills(Math.max(0, currentPage - 1)))
)
element("p-next").addEventListener(
  "click",
  guarded(async () => {
    if (nextCursor !== null) await loadBills(currentPage + 1)
  })
)
element("raw-close").addEventListener("click", () => {
  element("raw").hidden = true
})
element("events-load").addEventListener("click", guarded(loadEvents))
window.addEventListener("popstate", guarded(refresh))

guarded(async () => {
  await loadOverview()
  await refresh()
})()
