/**
 * An interrupted export leaves only whole lines: the line sink tested in process, with the
 * interruption placed deterministically between two writes and inside one, and the export job
 * interrupted between two pages. The process test (BillsCli) does the same through a signal.
 */
import { BillsApi } from "@account-bills/core"
import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { exportBills } from "../src/cli/ExportBills.js"
import * as LineSink from "../src/cli/LineSink.js"
import { expectNdjsonExport } from "./support/exportCheck.js"

const tempFile = (name: string) => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "line-sink-")), name)

/** `count` numbered lines of about 100 bytes, so a page of them spans several OS writes. */
const lines = (first: number, count: number) =>
  Array.from({ length: count }, (_, i) => `${JSON.stringify({ n: first + i, pad: "x".repeat(80) })}\n`).join("")

/** Waits, without the wall clock, until `fiber` is suspended (here: waiting for a write to finish). */
const untilSuspended = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1000; i++) {
      if ((yield* Fiber.status(fiber))._tag === "Suspended") return
      yield* Effect.yieldNow()
    }
    expect.fail("the writing fiber never waited for its write")
  })

describe("LineSink: an interrupted writer leaves whole lines", () => {
  it.effect("interrupted between two writes: exactly the writes made, nothing after", () =>
    Effect.gen(function* () {
      const file = tempFile("between.ndjson")
      const scope = yield* Scope.make()
      const sink = yield* Scope.extend(LineSink.open(file), scope)
      const written = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        Effect.gen(function* () {
          yield* sink.write(lines(0, 500))
          yield* sink.write(lines(500, 500))
          yield* Deferred.succeed(written, undefined)
          // The next page never comes: the interruption lands here, between two writes.
          yield* Effect.never
          yield* sink.write(lines(1000, 500))
        })
      )
      yield* Deferred.await(written)
      yield* Fiber.interrupt(fiber)
      yield* Scope.close(scope, Exit.void)
      expect(fs.readFileSync(file, "utf8")).toBe(lines(0, 1000))
    })
  )

  it.effect("interrupted inside a write: the write already handed over completes, whole", () =>
    Effect.gen(function* () {
      const file = tempFile("inside.ndjson")
      const text = lines(0, 20_000)
      const scope = yield* Scope.make()
      const sink = yield* Scope.extend(LineSink.open(file), scope)
      const fiber = yield* Effect.fork(sink.write(text))
      yield* untilSuspended(fiber)
      yield* Fiber.interrupt(fiber)
      // Closing the file waits for what was handed over; nothing half-written is left behind.
      yield* Scope.close(scope, Exit.void)
      const content = fs.readFileSync(file, "utf8")
      expect(content.length).toBe(text.length)
      expect(content).toBe(text)
    })
  )
})

describe("LineSink: where the lines go, and failures", () => {
  it.effect("a file that cannot be opened is an OutputError naming it and the reason", () =>
    Effect.gen(function* () {
      const file = path.join(tempFile("unused"), "no-such-directory", "out.csv")
      const error = yield* Effect.flip(Effect.scoped(LineSink.open(file)))
      expect(error._tag).toBe("OutputError")
      expect(error.message).toBe(`cannot write ${file}: ${error.reason}`)
      expect(error.reason).toContain("ENOENT")
    })
  )

  it.effect.each([
    { code: "EIO", tag: "OutputError", message: "cannot write standard output: write EIO" },
    { code: "EPIPE", tag: "OutputClosed", message: "the reader of standard output closed it" }
  ])("without a path, lines go to standard output; a write failing with $code is $tag", ({ code, tag, message }) =>
    Effect.gen(function* () {
      const written: Array<string> = []
      let failing = false
      const original = process.stdout.write
      // Standard output stands in for a pipe whose reader goes away mid-export.
      const fake = (chunk: unknown, ...rest: Array<unknown>) => {
        const callback = rest.find((arg): arg is (error?: Error | null) => void => typeof arg === "function")
        if (failing) callback?.(Object.assign(new Error(`write ${code}`), { code }))
        else {
          written.push(String(chunk))
          callback?.(null)
        }
        return !failing
      }
      const result = yield* Effect.gen(function* () {
        process.stdout.write = fake as typeof process.stdout.write
        const sink = yield* LineSink.open(undefined)
        yield* sink.write("a,b\n")
        yield* sink.write("")
        failing = true
        return yield* Effect.flip(sink.write("c,d\n"))
      }).pipe(
        Effect.scoped,
        Effect.ensuring(
          Effect.sync(() => {
            process.stdout.write = original
          })
        )
      )
      expect(written).toEqual(["a,b\n"])
      expect(result._tag).toBe(tag)
      expect(result.message).toBe(message)
    })
  )
})

describe("export: interrupted between two pages", () => {
  it.effect("the file holds the bills of the pages written, each exactly as sent, none twice", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      const bills = yield* exchange.bills("spot")
      yield* TestClock.setTime(Number(bills[bills.length - 1]?.cTime) + 1)
      const out = tempFile("export.ndjson")
      const twoPages = yield* Deferred.make<void>()
      let pages = 0
      // The export reads the request count after writing each page: after the second one,
      // it is held there and interrupted, between two writes.
      const requests = Effect.suspend(() => {
        pages += 1
        return pages < 2 ? Effect.succeed(pages) : Effect.zipRight(Deferred.succeed(twoPages, undefined), Effect.never)
      })
      // One request at a time: this test is about the writer, not the walk (the stack's exchange
      // keeps its own limit, and read-ahead requests would meet it while the clock stands still).
      const fiber = yield* Effect.fork(
        exportBills({ account: "spot", format: "ndjson", out, concurrency: 1 }, { live: false, requests })
      )
      yield* Deferred.await(twoPages)
      yield* Fiber.interrupt(fiber)
      const text = fs.readFileSync(out, "utf8")
      expectNdjsonExport(text, bills, { partial: true })
      // Exactly the first two pages of the walk, in order: the same walk again, taken by hand.
      const api = yield* BillsApi
      const firstTwo = yield* Stream.runCollect(Stream.take(api.streamSpotPages({ concurrency: 1 }), 2))
      const expected = Chunk.toReadonlyArray(firstTwo).flatMap((page) => page.bills)
      expect(expected.length).toBeGreaterThan(100)
      expect(text).toBe(expected.map((bill) => `${JSON.stringify(bill.raw)}\n`).join(""))
    }).pipe(
      Effect.provide(
        TestBillsApi.layerStack({
          // No limit on either side: the walk reads ahead, and the clock here only moves by hand.
          exchange: {
            rateLimit: false,
            generate: { seed: 8, funding: 0, spot: 450, sameMillisecondGroup: { every: 9, size: 3 } }
          }
        })
      )
    )
  )
})
