/**
 * The fake's answers in the interface version it serves. The model answers in v2 envelopes
 * (queries, authentication and faults know one form); this module routes each version's paths
 * and renders an envelope in the version's form, so the model never asks which version it is.
 */
import * as Either from "effect/Either"
import type { ApiVersion } from "../../BillsConfig.js"
import { successCode, type VersionPaths, versionPaths } from "../../internal/protocol.js"
import { envelope, type Rejection, rejections, rejectionsV3 } from "../FakeProtocol.js"

/**
 * One version's wire: its paths, the server-time body, and the rendering of a model answer.
 */
export interface WireFormat extends VersionPaths {
  readonly serverTimeBody: (now: number) => string
  /** The futures host's time endpoint's body. */
  readonly contractServerTimeBody: (now: number) => string
  /** A model answer (status and v2 envelope text) as this version sends it. */
  readonly render: (status: number, body: string) => { readonly status: number; readonly body: string }
}

interface Envelope {
  readonly code: string
  readonly msg: string
  readonly data: unknown
}

const parseEnvelope = (body: string): Envelope | undefined =>
  Either.getOrUndefined(Either.try(() => JSON.parse(body) as Envelope))

const rejectionNames = Object.keys(rejections) as ReadonlyArray<keyof typeof rejections>

/** The fake's own rejection behind a v2 failure (same code, message starting alike), if any. */
const v3Rejection = (code: string, msg: string): { readonly v3: Rejection; readonly detail: string } | undefined => {
  for (const name of rejectionNames) {
    const v2: Rejection = rejections[name]
    if (v2.code === code && msg.startsWith(v2.msg)) return { v3: rejectionsV3[name], detail: msg.slice(v2.msg.length) }
  }
  return undefined
}

const v3Failure = (status: number, code: string, msg: string) => {
  const known = v3Rejection(code, msg)
  if (known !== undefined) {
    return { status, body: JSON.stringify({ code: Number(known.v3.code), msg: `${known.v3.msg}${known.detail}` }) }
  }
  // Injected faults: a numeric code goes as a number (a v3 code such as "-1054" stays itself).
  const numeric = /^-?\d+$/.test(code) ? Number(code) : -1000
  return { status, body: JSON.stringify({ code: numeric, msg }) }
}

const v2: WireFormat = {
  ...versionPaths.v2,
  serverTimeBody: (now) => envelope(successCode, "success", now, now),
  // The futures host's market clock, bare, in the fields its docs list.
  contractServerTimeBody: (now) =>
    JSON.stringify({ epoch: (now / 1000).toFixed(3), iso: new Date(now).toISOString(), timestamp: now }),
  render: (status, body) => ({ status, body })
}

const v3: WireFormat = {
  ...versionPaths.v3,
  serverTimeBody: (now) => JSON.stringify({ serverTime: now }),
  contractServerTimeBody: (now) => JSON.stringify({ serverTime: now }),
  render: (status, body) => {
    const parsed = parseEnvelope(body)
    if (parsed === undefined) return { status, body }
    if (parsed.code === successCode) {
      const data = parsed.data
      // The v3 funding page also says how many pages there are.
      const page =
        typeof data === "object" && data !== null && "hasNextPage" in data && "total" in data && "pageSize" in data
          ? (data as {
              readonly total: number
              readonly pageSize: number
              readonly page: number
              readonly hasNextPage: boolean
              readonly items: unknown
            })
          : undefined
      return {
        status,
        body: JSON.stringify(
          page === undefined
            ? data
            : {
                total: page.total,
                pageSize: page.pageSize,
                pages: Math.ceil(page.total / page.pageSize),
                page: page.page,
                hasNextPage: page.hasNextPage,
                items: page.items
              }
        )
      }
    }
    return v3Failure(status, parsed.code, parsed.msg)
  }
}

/**
 * The wire of each version.
 */
export const wireFormats: Readonly<Record<ApiVersion, WireFormat>> = { v2, v3 }
