/**
 * `pnpm fake-exchange`: the fake exchange of `bills fake-exchange`, run from this repository's
 * sources; the commands it prints use `pnpm bills`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { fakeExchangeCommand } from "../cli/FakeExchangeCommand.js"
import { packageVersion } from "../internal/version.js"

const cli = (version: string) => Command.run(fakeExchangeCommand("pnpm bills"), { name: "fake-exchange", version })

Effect.flatMap(packageVersion, (version) => cli(version)(process.argv)).pipe(
  Effect.catchTag("FakeExchangeServerError", (error) =>
    Effect.zipRight(
      Console.error(error.message),
      Effect.sync(() => {
        process.exitCode = 1
      })
    )
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
