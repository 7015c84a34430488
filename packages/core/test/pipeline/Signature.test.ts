import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { BillsApi, Signature } from "../../src/index.js"
import { envelope, makeStub } from "../support/stubHttp.js"

// Each expected value was computed with OpenSSL, outside this code:
//   printf '%s' "$PREHASH" | openssl dgst -sha256 -hmac "$SECRET" -binary | base64
const vectors = [
  {
    secret: "fake-secret",
    parts: {
      timestamp: "1700000000000",
      method: "POST",
      path: "/api/v2/account/bills",
      query: "",
      body: '{"coinId":2,"limit":100}'
    },
    prehash: '1700000000000POST/api/v2/account/bills{"coinId":2,"limit":100}',
    expected: "F4m4u6n4lK4/oSE7RWg6JvjsCEz2lWMmrwrVTD4++oo="
  },
  {
    secret: "s3cr3t/with+symbols=",
    parts: {
      timestamp: "1735689600123",
      method: "POST",
      path: "/api/v2/account/fundingBills",
      query: "",
      body: '{"startTime":"1735000000000","endTime":"1735689600000","pageIndex":2,"pageSize":100}'
    },
    prehash:
      '1735689600123POST/api/v2/account/fundingBills{"startTime":"1735000000000","endTime":"1735689600000","pageIndex":2,"pageSize":100}',
    expected: "dXCxv2UViw6LUnIo5y+mU9755Ei/DeTJdxPpTMu6ItI="
  },
  {
    secret: "secret",
    parts: { timestamp: "1700000000000", method: "get", path: "/api/v2/public/time", query: "coin=BTC&x=1", body: "" },
    prehash: "1700000000000GET/api/v2/public/time?coin=BTC&x=1",
    expected: "vbMm5CmKgwWnT33wCg42vEKpJTqI+kruPB4pdcIFGzo="
  },
  {
    secret: "ünïcödé-secret",
    parts: { timestamp: "1700000000001", method: "POST", path: "/api/v2/account/bills", query: "", body: "{}" },
    prehash: "1700000000001POST/api/v2/account/bills{}",
    expected: "2+NYrVL4Ovwzv0VWnr9FwCbnc2dg/Dv9unlDFrwdjjw="
  }
]

describe("Signature", () => {
  for (const vector of vectors) {
    it.effect(`known answer for ${vector.prehash.slice(0, 48)}…`, () =>
      Effect.gen(function* () {
        expect(Signature.prehash(vector.parts)).toBe(vector.prehash)
        expect(yield* Signature.sign(vector.secret, vector.parts)).toBe(vector.expected)
      })
    )
  }
})

/**
 * Both operations' real requests, as the client builds and signs them (body text, key order,
 * time bounds as digit strings), with the signature computed by OpenSSL from the exact bytes.
 * The fake exchange verifies with our own signing code, so only vectors like these catch a bug
 * that breaks both sides alike. The secret is `credentials.secret` of support/stubHttp.ts.
 */
const requestVectors = [
  {
    call: (api: BillsApi["Type"]) =>
      api.fundingBills({
        coinId: 2,
        bizType: "deposit",
        startTime: 1735000000000,
        endTime: new Date(1735689600000),
        pageIndex: 2,
        pageSize: 100
      }),
    answer: envelope({ total: 0, page: 2, pageSize: 100, hasNextPage: false, items: [] }),
    url: "https://exchange.test/api/v2/account/fundingBills",
    body: '{"coinId":2,"bizType":"deposit","startTime":"1735000000000","endTime":"1735689600000","pageIndex":2,"pageSize":100}',
    // printf '%s' '1735689600123POST/api/v2/account/fundingBills{"coinId":2,"bizType":"deposit","startTime":"1735000000000","endTime":"1735689600000","pageIndex":2,"pageSize":100}' \
    //   | openssl dgst -sha256 -hmac 'secret-s3cr3t-visible-nowhere' -binary | base64
    sign: "syYM300fMiYwAk7NKd6IiQEPAqGV0FMTSSCVsA1ISLU="
  },
  {
    call: (api: BillsApi["Type"]) =>
      api.spotBills({ coinId: 2, bizType: "trade_in", after: 1735000000000, before: 1735689600000, limit: 100 }),
    answer: envelope([]),
    url: "https://exchange.test/api/v2/account/bills",
    body: '{"coinId":2,"bizType":"trade_in","after":"1735000000000","before":"1735689600000","limit":100}',
    // printf '%s' '1735689600123POST/api/v2/account/bills{"coinId":2,"bizType":"trade_in","after":"1735000000000","before":"1735689600000","limit":100}' \
    //   | openssl dgst -sha256 -hmac 'secret-s3cr3t-visible-nowhere' -binary | base64
    sign: "G+NjmEbB0zOEclGZsPYhSu0deAvFJOtKNc/xh08Y+F4="
  },
  {
    call: (api: BillsApi["Type"]) => api.spotBills({ limit: 100 }),
    answer: envelope([]),
    url: "https://exchange.test/api/v2/account/bills",
    body: '{"limit":100}',
    // printf '%s' '1735689600123POST/api/v2/account/bills{"limit":100}' \
    //   | openssl dgst -sha256 -hmac 'secret-s3cr3t-visible-nowhere' -binary | base64
    sign: "DrpKjzKzwoR3LGPe4avmZDRJ2QdRjS5Wo5wtc87W7wQ="
  }
]

describe("Signature of the client's real requests (OpenSSL vectors)", () => {
  for (const vector of requestVectors) {
    it.effect(`${vector.body}`, () => {
      const stub = makeStub([{ status: 200, body: vector.answer }])
      return Effect.gen(function* () {
        yield* TestClock.setTime(1735689600123)
        yield* vector.call(yield* BillsApi)
        const [request] = stub.requests
        expect(request?.method).toBe("POST")
        expect(request?.url).toBe(vector.url)
        expect(request?.body).toBe(vector.body)
        expect(request?.headers["access-timestamp"]).toBe("1735689600123")
        expect(request?.headers["access-sign"]).toBe(vector.sign)
      }).pipe(Effect.provide(stub.layer))
    })
  }
})
