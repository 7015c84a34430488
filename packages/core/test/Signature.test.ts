import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Signature } from "../src/index.js"

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
