/**
 * `/readyz` is what a rollout waits on: a runner that holds no shard does no work, and must not
 * say it is ready. Two runners in this process share a cluster of one shard, so exactly one of
 * them can hold it: that one answers 200, the other 503 and says why, whichever the cluster
 * gives the shard to.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { inProcessRunner, oneReady, readyz } from "./support/inProcessRunner.js"
import { freePorts } from "./support/ports.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"
import { until } from "./support/until.js"

describe.skipIf(postgresUrl === undefined)("/readyz", () => {
  it.live(
    "of two runners and one shard: the one holding it answers 200, the other 503, saying it holds no shard",
    () =>
      Effect.gen(function* () {
        const { db, exchange } = yield* seededFleet({
          accounts: 1,
          labelOf: (i) => `ready-${i}`,
          credentialsOf: (i) => ({ apiKey: `ready-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` }),
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 70 + i, funding: 10, spot: 10, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        const [portA = 0, portB = 0, metricsA = 0, metricsB = 0] = yield* freePorts(4)
        const runner = (port: number, metrics: number) =>
          inProcessRunner({ db, exchangeUrl: exchange.url, port, metrics })
        yield* Layer.build(runner(portA, metricsA))
        yield* until("runner A ready", 60_000, () => readyz(metricsA).then((probe) => probe.status === 200))
        yield* Layer.build(runner(portB, metricsB))
        // Settled: both answer, one ready and the other not, three probes in a row.
        const last = yield* oneReady([metricsA, metricsB])
        const idle = last.find((probe) => probe.status === 503)
        expect(idle?.body).toBe("not ready: shards: this runner holds no shard yet\n")
        expect(last.find((probe) => probe.status === 200)?.body).toBe("ready\n")
      }).pipe(
        Effect.scoped,
        // The cluster warns of the runner that joins and leaves; nothing here reads it.
        Logger.withMinimumLogLevel(LogLevel.Error)
      ),
    120_000
  )
})
