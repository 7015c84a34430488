/**
 * Where the funding pages of a walk over the store ended, so that the next page is read by
 * keyset from there instead of by OFFSET from the top. The funding operation is paged by
 * `pageIndex` (the exchange's interface), and the store answers it as the exchange would; read by
 * OFFSET, each page of a walk re-reads every bill above it and re-counts the listing, and a walk
 * of a million bills costs billions of row visits (the audit of a million-bill store ran for
 * minutes in `bills view`). With a bookmark the page costs its own rows.
 *
 * A walk starts at the first page: that page forgets the listing's bookmarks, counts it, and
 * every later page of the walk answers with that count, as one reading of the listing. A page
 * asked for ahead of the last bookmark (the walk reads ahead) starts from the nearest bookmark
 * before it, skipping only the rows between.
 */

/** The last bill of a page, in the listing's order: where the next page starts. */
export interface Key {
  readonly time: number
  readonly billId: string
}

/** A bookmark: `offset` bills of the listing lie at or before `after`. */
export interface Bookmark {
  readonly offset: number
  readonly after: Key
}

/** How many listings are remembered, and how many bookmarks each (a walk's read-ahead). */
const listings = 16
const perListing = 8

/** The bookmarks of one store's funding listings, by the listing's text. */
export const make = () => {
  const held = new Map<string, { readonly total: number; readonly marks: Array<Bookmark> }>()

  /** A walk starts: the listing is read afresh, with `total` bills. */
  const start = (listing: string, total: number) => {
    held.delete(listing)
    held.set(listing, { total, marks: [] })
    if (held.size > listings) {
      const oldest = held.keys().next()
      if (oldest.done !== true) held.delete(oldest.value)
    }
  }

  /** The walk's count and the bookmark nearest before `offset`, when the walk is known. */
  const nearest = (
    listing: string,
    offset: number
  ): { readonly total: number; readonly mark: Bookmark | undefined } | undefined => {
    const found = held.get(listing)
    if (found === undefined) return undefined
    let mark: Bookmark | undefined
    for (const candidate of found.marks) {
      if (candidate.offset <= offset && (mark === undefined || candidate.offset > mark.offset)) mark = candidate
    }
    return { total: found.total, mark }
  }

  /** A page of the walk ended `offset` bills in, at `after`. */
  const record = (listing: string, offset: number, after: Key) => {
    const found = held.get(listing)
    if (found === undefined || found.marks.some((mark) => mark.offset === offset)) return
    found.marks.push({ offset, after })
    if (found.marks.length > perListing) {
      found.marks.sort((a, b) => a.offset - b.offset)
      found.marks.shift()
    }
  }

  return { start, nearest, record } as const
}
