/**
 * The client side of the benchmark: the data set, our client stack, the raw baseline (alone,
 * and awaited in an Effect fiber) and the bare transport. Client processes load only this, so
 * what they measure is the client's own (not the testing kit's, nor the bundler's).
 */
import { BillsApi, BillsConfig, BillsRateLimiter, Signature, Signer } from "@account-bills/core"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { Agent, request } from "undici"
// The raw baseline speaks the wire protocol itself, so it takes the paths from the plumbing.
import { operationPath } from "../packages/core/src/internal/protocol.js"

/** The lazy spot history every throughput, memory and scaling run walks. */
export const dataSet = {
  /** Bills the local exchange computes on demand. */
  count: 1_000_000,
  /** 2023-11-14T22:13:20Z. */
  startMillis: 1_700_000_000_000,
  /** Bill i lies in [start + i*step, start + (i+1)*step): one bill per window of `step` ms. */
  stepMillis: 10,
  seed: 7
} as const

/** The exclusive end of the window that holds exactly the first `count` bills. */
export const windowOf = (count: number): { readonly from: number; readonly to: number } => ({
  from: dataSet.startMillis,
  to: dataSet.startMillis + count * dataSet.stepMillis
})

/**
 * The credentials the local exchange of the benchmark accepts (given to it explicitly, so the
 * client processes need not load the testing kit to know them).
 */
export const credentials = { apiKey: "bench-key", secret: "bench-secret", passphrase: "bench-passphrase" } as const

const signerLayer = Signer.layer({
  apiKey: Redacted.make(credentials.apiKey),
  secret: Redacted.make(credentials.secret),
  passphrase: Redacted.make(credentials.passphrase)
})

/** Our whole client, with the limit lifted (or the default 10 per second). */
export const clientLayer = (baseUrl: string, limited = false): Layer.Layer<BillsApi> =>
  BillsApi.layer.pipe(
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provide(signerLayer),
    Layer.provide(limited ? BillsRateLimiter.layer() : BillsRateLimiter.layerUnlimited),
    Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl })))
  )

/** A walker: how many bills it saw and how many requests it made. */
export interface WalkResult {
  readonly bills: number
  readonly requests: number
}

/** Walks the first `count` bills of the data set with our client. */
export const makeOurWalker = (baseUrl: string) => {
  const runtime = ManagedRuntime.make(clientLayer(baseUrl))
  const walk = (count: number): Promise<WalkResult> =>
    runtime.runPromise(
      Effect.flatMap(BillsApi, (api) =>
        Stream.runFold(api.streamSpotPages(windowOf(count)), { bills: 0, requests: 0 }, (acc, page) => ({
          bills: acc.bills + page.bills.length,
          requests: page.requests
        }))
      )
    )
  return { walk, dispose: () => runtime.dispose() }
}

interface RawBill {
  readonly billId: string
  readonly cTime: string
}

/** Walks the first `count` bills as our spot walk does, with `page` fetching one response's data. */
const walkPages =
  (page: (body: string) => Promise<ReadonlyArray<RawBill>>) =>
  async (count: number): Promise<WalkResult> => {
    const { from, to } = windowOf(count)
    let after = from - 1
    let before = to
    let bills = 0
    let requests = 0
    let edge = new Set<string>()
    for (;;) {
      const data = await page(JSON.stringify({ after: String(after), before: String(before), limit: 100 }))
      requests++
      const oldest = data[data.length - 1]
      const next = new Set<string>()
      for (const bill of data) {
        const t = Number(bill.cTime)
        if (t < from || t >= to || edge.has(bill.billId)) continue
        bills++
        if (oldest !== undefined && bill.cTime === oldest.cTime) next.add(bill.billId)
      }
      if (data.length < 100 || oldest === undefined) break
      // The bounds are inclusive on this exchange, as our client learns from its first pages.
      after = from
      before = Number(oldest.cTime)
      edge = next
    }
    return { bills, requests }
  }

const dataOf = (text: string): ReadonlyArray<RawBill> => {
  const envelope = JSON.parse(text) as { code: string; data: ReadonlyArray<RawBill> }
  if (envelope.code !== "00000") throw new Error(`walk: code ${envelope.code}`)
  return envelope.data
}

/** One raw page: undici `request` on `agent`, signed, and `JSON.parse`; nothing validated. */
const makeRawPage = (baseUrl: string, agent: Agent) => {
  const key = Signature.importSecret(credentials.secret).pipe(Effect.runSync)
  const path = operationPath.spotBills
  return async (body: string): Promise<ReadonlyArray<RawBill>> => {
    const timestamp = String(Date.now())
    const sign = Effect.runSync(Signature.signWithKey(key, { timestamp, method: "POST", path, query: "", body }))
    const response = await request(baseUrl + path, {
      method: "POST",
      dispatcher: agent,
      headers: {
        "ACCESS-KEY": credentials.apiKey,
        "ACCESS-SIGN": sign,
        "ACCESS-PASSPHRASE": credentials.passphrase,
        "ACCESS-TIMESTAMP": timestamp,
        locale: "en-US",
        "content-type": "application/json"
      },
      body
    })
    return dataOf(await response.body.text())
  }
}

/**
 * The raw baseline: the same requests as our spot walk makes (newest first, 100 per page, the
 * window narrowed to the oldest millisecond of a full page, overlapping it, repeats dropped),
 * over undici `request` and `JSON.parse`, signed, without any validation or decoding.
 */
export const makeRawWalker = (baseUrl: string) => {
  const agent = new Agent()
  return { walk: walkPages(makeRawPage(baseUrl, agent)), dispose: () => agent.close() }
}

/**
 * The raw baseline awaited from an Effect fiber (`Effect.promise`): what running in the
 * Effect runtime costs by itself, with neither the platform's HttpClient nor our pipeline.
 */
export const makeFiberRawWalker = (baseUrl: string) => {
  const agent = new Agent()
  const page = makeRawPage(baseUrl, agent)
  return {
    walk: walkPages((body) => Effect.runPromise(Effect.promise(() => page(body)))),
    dispose: () => agent.close()
  }
}

/**
 * The same walk over the HttpClient our client runs on (@effect/platform over undici), signed
 * by our Signer, with `JSON.parse` and no validation: what the transport alone costs.
 */
export const makePlatformWalker = (baseUrl: string) => {
  const runtime = ManagedRuntime.make(Layer.merge(NodeHttpClient.layerUndici, signerLayer))
  const path = operationPath.spotBills
  const page = (body: string): Promise<ReadonlyArray<RawBill>> =>
    runtime.runPromise(
      Effect.gen(function* () {
        const client = yield* HttpClient.HttpClient
        const signer = yield* Signer
        const headers = yield* signer.headers({ method: "POST", path, query: "", body })
        const response = yield* client.execute(
          HttpClientRequest.post(baseUrl + path).pipe(
            HttpClientRequest.setHeaders({ ...headers, locale: "en-US" }),
            HttpClientRequest.bodyText(body, "application/json")
          )
        )
        return dataOf(yield* response.text)
      })
    )
  return { walk: walkPages(page), dispose: () => runtime.dispose() }
}
