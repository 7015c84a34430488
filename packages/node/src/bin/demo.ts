#!/usr/bin/env node
/**
 * Entry point of `pnpm demo` (`--view`: then serve `bills view` over the demo's store and open
 * it; `--random`: the random bills of the demo before 0.3.0 instead of a trader's year).
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { demoDefaults, runDemo } from "../cli/Demo.js"
import { ExitCode, main, teardown } from "../cli/main.js"

const flags = process.argv.slice(2)
const unknown = flags.filter((flag) => flag !== "--view" && flag !== "--random")

const program =
  unknown.length > 0
    ? Effect.sync(() => {
        process.stderr.write(`demo: ${unknown[0]} is not a flag of the demo (--view, --random)\n`)
        return ExitCode.usage
      })
    : runDemo({ ...demoDefaults, bills: flags.includes("--random") ? "random" : "trader" }).pipe(
        // `bills view --open` itself, so the page is the one the printed command shows (on a free
        // port: the line it prints first names it).
        Effect.flatMap(({ db }) =>
          flags.includes("--view")
            ? main([process.argv[0] ?? "node", process.argv[1] ?? "demo", "view", "--db", db, "--port", "0", "--open"])
            : Effect.succeed(ExitCode.ok)
        ),
        Effect.catchAll((error) =>
          Effect.sync(() => {
            process.stderr.write(`demo: ${error.message}\n`)
            return ExitCode.failed
          })
        )
      )

NodeRuntime.runMain(program, { disableErrorReporting: true, teardown })
