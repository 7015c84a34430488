#!/usr/bin/env node
/**
 * Entry point of `pnpm demo`.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { runDemo } from "../cli/Demo.js"
import { ExitCode, teardown } from "../cli/main.js"

const program = runDemo().pipe(
  Effect.as(ExitCode.ok),
  Effect.catchAll((error) =>
    Effect.sync(() => {
      process.stderr.write(`demo: ${error.message}\n`)
      return ExitCode.failed
    })
  )
)

NodeRuntime.runMain(program, { disableErrorReporting: true, teardown })
