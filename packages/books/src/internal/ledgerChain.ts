/**
 * The balance chain of one account and coin under one fee rule, walked group by group (a group
 * is the bills of one millisecond), in either time direction.
 *
 * Every bill is an edge of a graph whose nodes are balances: from the balance before it to the
 * balance after it (reversed when the walk runs newest-first). The chain holds when the edges
 * form one trail. Within a millisecond the exchange's order says nothing, so each group is laid
 * out as an Euler trail (Hierholzer) that starts where the chain stands; a group that has no such
 * trail is laid out with the fewest jumps, and every jump is a break. A group's end balance is
 * fixed by its edges whatever order is chosen, so deciding group by group loses nothing.
 *
 * At the very start the balance before the window is unknown. A first group with a natural start
 * (a node with more edges out than in) starts there; a first group that closes on itself (net
 * zero in one millisecond) could start at any of its balances, so it is held, with those
 * balances as candidates, until a later group decides which one the chain passes through.
 */
import * as BigDecimal from "effect/BigDecimal"

/**
 * How `fees` relates to the balance change.
 */
export type FeeRuleName = "delta-includes-fees" | "fees-subtracted" | "fees-added"

/**
 * The rules the audit tries, in the order it prefers them when the data cannot tell.
 */
export const feeRuleNames: ReadonlyArray<FeeRuleName> = ["delta-includes-fees", "fees-subtracted", "fees-added"]

/**
 * What the chain needs of a bill.
 */
export interface ChainBill {
  readonly billId: string
  readonly deltaAmount: BigDecimal.BigDecimal
  readonly afterAmount: BigDecimal.BigDecimal
  readonly fees: BigDecimal.BigDecimal
}

/**
 * The balance before a bill, if the data follows `rule`.
 */
export const balanceBefore = (rule: FeeRuleName, bill: ChainBill): BigDecimal.BigDecimal => {
  const net = BigDecimal.subtract(bill.afterAmount, bill.deltaAmount)
  switch (rule) {
    case "delta-includes-fees":
      return net
    case "fees-subtracted":
      return BigDecimal.sum(net, bill.fees)
    case "fees-added":
      return BigDecimal.subtract(net, bill.fees)
  }
}

/** Equal balances get equal keys whatever their scale ("1.50" and "1.5"). */
export const keyOf = (value: BigDecimal.BigDecimal): string => {
  const normalized = BigDecimal.normalize(value)
  return `${normalized.value}e${-normalized.scale}`
}

/**
 * Which way the walk runs through time.
 */
export type Direction = "ascending" | "descending"

/**
 * A bill as an edge of the walk.
 */
export interface Link<B> {
  readonly bill: B
  readonly from: string
  readonly to: string
}

export const linkOf = <B extends ChainBill>(rule: FeeRuleName, direction: Direction, bill: B): Link<B> => {
  const before = keyOf(balanceBefore(rule, bill))
  const after = keyOf(bill.afterAmount)
  return direction === "ascending" ? { bill, from: before, to: after } : { bill, from: after, to: before }
}

/** No balance key looks like this, so it can stand for the virtual node. */
const virtual = "*"

interface Arc<B> {
  readonly to: string
  readonly link: Link<B> | undefined
  readonly first: boolean
}

/**
 * Orders one group so that it is a single trail from `start` when one exists, and otherwise
 * with as few jumps as possible. With `start` undefined the group starts at its natural start.
 *
 * Method: add a virtual node joined to every imbalanced node (and to one node of every balanced
 * component the rest cannot reach) so that the graph is Eulerian, take its Euler circuit from the
 * virtual edge into `start`, and drop the virtual edges; each remaining visit of the virtual
 * node is a jump.
 */
export const orderGroup = <B>(start: string | undefined, links: ReadonlyArray<Link<B>>): ReadonlyArray<Link<B>> => {
  if (links.length <= 1) return links
  const surplus = new Map<string, number>()
  const bump = (node: string, by: number) => surplus.set(node, (surplus.get(node) ?? 0) + by)
  for (const link of links) {
    bump(link.from, 1)
    bump(link.to, -1)
  }
  const origin = start ?? naturalStart(surplus) ?? (links[0] as Link<B>).from
  bump(origin, -1)

  const arcs = new Map<string, Array<Arc<B>>>()
  const arc = (from: string, to: string, link: Link<B> | undefined, first = false) => {
    const list = arcs.get(from)
    const entry: Arc<B> = { to, link, first }
    if (list === undefined) arcs.set(from, [entry])
    else list.push(entry)
  }
  for (const link of links) arc(link.from, link.to, link)
  arc(virtual, origin, undefined, true)

  // Components of the real edges; those not touched by a virtual edge need one pair to join in.
  const parent = new Map<string, string>()
  const find = (node: string): string => {
    let root = node
    while ((parent.get(root) ?? root) !== root) root = parent.get(root) as string
    parent.set(node, root)
    return root
  }
  const union = (a: string, b: string) => parent.set(find(a), find(b))
  for (const link of links) union(link.from, link.to)
  const joined = new Set<string>([find(origin)])
  for (const [node, excess] of surplus) {
    // More out than in: the trail must jump in there; more in than out: it leaves from there.
    for (let i = 0; i < excess; i++) arc(virtual, node, undefined)
    for (let i = 0; i < -excess; i++) arc(node, virtual, undefined)
    if (excess !== 0) joined.add(find(node))
  }
  for (const link of links) {
    const root = find(link.from)
    if (joined.has(root)) continue
    joined.add(root)
    arc(virtual, link.from, undefined)
    arc(link.from, virtual, undefined)
  }

  // Hierholzer, iteratively; arcs come out in reverse circuit order.
  const next = new Map<string, number>()
  const stack: Array<{ readonly node: string; readonly via: Arc<B> | undefined }> = [{ node: virtual, via: undefined }]
  const circuit: Array<Arc<B>> = []
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { readonly node: string; readonly via: Arc<B> | undefined }
    const list = arcs.get(top.node)
    const index = next.get(top.node) ?? 0
    if (list !== undefined && index < list.length) {
      next.set(top.node, index + 1)
      const taken = list[index] as Arc<B>
      stack.push({ node: taken.to, via: taken })
    } else {
      stack.pop()
      if (top.via !== undefined) circuit.push(top.via)
    }
  }
  circuit.reverse()
  // A circuit can start at any of its edges: start at the one into `origin`.
  const at = circuit.findIndex((entry) => entry.first)
  const rotated = [...circuit.slice(at), ...circuit.slice(0, at)]
  const ordered: Array<Link<B>> = []
  for (const entry of rotated) if (entry.link !== undefined) ordered.push(entry.link)
  // The augmented graph is Eulerian by construction, so this never triggers; if it did, a bill
  // left out would vanish from the audit, so it is laid out at the end (as a break) instead.
  if (ordered.length < links.length) {
    const laid = new Set(ordered)
    for (const link of links) if (!laid.has(link)) ordered.push(link)
  }
  return ordered
}

/** The node with the most edges out over in, if any has more out than in. */
const naturalStart = (surplus: ReadonlyMap<string, number>): string | undefined => {
  let best: string | undefined
  let most = 0
  for (const [node, excess] of surplus) {
    if (excess > most) {
      best = node
      most = excess
    }
  }
  return best
}

const isClosedCircuit = <B>(links: ReadonlyArray<Link<B>>): boolean => {
  const surplus = new Map<string, number>()
  for (const link of links) {
    surplus.set(link.from, (surplus.get(link.from) ?? 0) + 1)
    surplus.set(link.to, (surplus.get(link.to) ?? 0) - 1)
  }
  for (const excess of surplus.values()) if (excess !== 0) return false
  // Balanced and laid out without a jump: one closed trail.
  const ordered = orderGroup((links[0] as Link<B>).from, links)
  for (let i = 1; i < ordered.length; i++) {
    if ((ordered[i - 1] as Link<B>).to !== (ordered[i] as Link<B>).from) return false
  }
  return true
}

/**
 * A break: `later` does not start from the balance `earlier` ended with.
 */
export interface Break<B> {
  readonly earlier: B
  readonly later: B
}

/**
 * What a finished chain found.
 */
export interface ChainResult<B> {
  /** The earliest and latest bill in chain order; undefined when the chain is empty. */
  readonly first: B | undefined
  readonly last: B | undefined
  readonly breakCount: number
  /** The first `maxBreaks` breaks, in walk order. */
  readonly breaks: ReadonlyArray<Break<B>>
}

type Position<B> =
  | {
      readonly _tag: "Floating"
      /** Balances the chain may stand at; undefined: any. */
      readonly candidates: ReadonlyArray<string> | undefined
      /** Closed groups not yet laid out, each a circuit. */
      readonly pending: ReadonlyArray<ReadonlyArray<Link<B>>>
    }
  | { readonly _tag: "At"; readonly last: Link<B> }

/**
 * One chain: feed it the groups of one account and coin in walk order, then finish it.
 */
export const makeChain = <B extends ChainBill>(rule: FeeRuleName, maxBreaks: number) => {
  let position: Position<B> = { _tag: "Floating", candidates: undefined, pending: [] }
  let direction: Direction = "ascending"
  let walkFirst: Link<B> | undefined
  let walkLast: Link<B> | undefined
  let breakCount = 0
  const breaks: Array<Break<B>> = []

  const lay = (ordered: ReadonlyArray<Link<B>>, previous: Link<B> | undefined): Link<B> | undefined => {
    let before = previous
    for (const link of ordered) {
      if (before !== undefined && before.to !== link.from) {
        breakCount++
        if (breaks.length < maxBreaks) {
          breaks.push(
            direction === "ascending"
              ? { earlier: before.bill, later: link.bill }
              : { earlier: link.bill, later: before.bill }
          )
        }
      }
      walkFirst ??= link
      walkLast = link
      before = link
    }
    return before
  }

  /** Lays out the held circuits, each turned to start (and end) at `node`. */
  const settle = (pending: ReadonlyArray<ReadonlyArray<Link<B>>>, node: string | undefined) => {
    let last: Link<B> | undefined
    for (const circuit of pending) {
      const at = node === undefined ? -1 : circuit.findIndex((link) => link.from === node)
      last = lay(at <= 0 ? circuit : [...circuit.slice(at), ...circuit.slice(0, at)], last)
    }
    return last
  }

  const add = (group: ReadonlyArray<B>, walk: Direction): void => {
    direction = walk
    const links = group.map((bill) => linkOf(rule, walk, bill))
    if (links.length === 0) return
    if (position._tag === "At") {
      const last = lay(orderGroup(position.last.to, links), position.last)
      if (last !== undefined) position = { _tag: "At", last }
      return
    }
    const { candidates, pending } = position
    const nodes = new Set(links.flatMap((link) => [link.from, link.to]))
    if (isClosedCircuit(links)) {
      const shared = candidates === undefined ? [...nodes] : candidates.filter((node) => nodes.has(node))
      if (shared.length > 0) {
        position = {
          _tag: "Floating",
          candidates: shared,
          pending: [...pending, orderGroup(shared[0], links)]
        }
        return
      }
    }
    // Choose where the held circuits stand: where this group naturally starts if that is a
    // candidate, else any candidate this group touches.
    const natural = orderGroup(undefined, links)[0]?.from
    const node =
      candidates === undefined
        ? undefined
        : (candidates.find((c) => c === natural) ?? candidates.find((c) => nodes.has(c)) ?? candidates[0])
    const previous = settle(pending, node)
    const last = lay(orderGroup(previous?.to, links), previous)
    if (last !== undefined) position = { _tag: "At", last }
  }

  const finish = (): ChainResult<B> => {
    if (position._tag === "Floating") {
      const last = settle(position.pending, position.candidates?.[0])
      if (last !== undefined) position = { _tag: "At", last }
    }
    const [first, last] = direction === "ascending" ? [walkFirst, walkLast] : [walkLast, walkFirst]
    return { first: first?.bill, last: last?.bill, breakCount, breaks }
  }

  return { add, finish }
}
