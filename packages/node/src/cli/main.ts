/**
 * The `bills` program: subcommands, one-line failures and exit codes.
 *
 * Exit codes: 0 done, 1 failed (the exchange, the network, the output, the environment),
 * 2 bad flags or values (nothing was sent), 3 an audit found a broken chain, 130 interrupted.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { auditCommand } from "./AuditCommand.js"
import { exportCommand } from "./ExportCommand.js"
import { syncCommand } from "./SyncCommand.js"

/**
 * Exit codes of the program.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = { ok: 0, failed: 1, usage: 2, broken: 3, interrupted: 130 } as const

const bills = Command.make("bills").pipe(
  Command.withDescription("export the bill history of an exchange account"),
  Command.withSubcommands([exportCommand, auditCommand, syncCommand])
)

const cli = Command.run(bills, { name: "bills", version: "0.1.0" })

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what this strips
const ansi = /\x1b\[[0-9;]*m/g

/** The first line of what @effect/cli would print for a bad flag, without colours. */
const firstLine = (text: string): string =>
  text
    .replace(ansi, "")
    .split("\n")
    .map((part) => part.trim())
    .find((part) => part !== "") ?? "invalid command line"

/**
 * Runs the program on `argv` and resolves to the exit code; every failure has been reported
 * on stderr in one line by then.
 *
 * @since 0.1.0
 * @category utils
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number> => {
  // `bills fleet …` lives in @account-bills/fleet, loaded only when it runs.
  if (argv[2] === "fleet") return fleetMain(argv)
  const cliErrors: Array<string> = []
  const quietConsole = Effect.map(Console.consoleWith(Effect.succeed), (console) => ({
    ...console,
    error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void cliErrors.push(args.map(String).join(" ")))
  }))
  return Effect.flatMap(quietConsole, (console) =>
    cli(argv).pipe(
      Effect.withConsole(console),
      Effect.as(ExitCode.ok),
      Effect.catchAll((error) => {
        if (ValidationError.isValidationError(error)) {
          if (ValidationError.isHelpRequested(error)) return Effect.succeed(ExitCode.ok)
          return report(firstLine(cliErrors.join("\n")), ExitCode.usage)
        }
        // `| head` has all it wanted: like a finished export, not like a failure.
        if (error._tag === "OutputClosed") return Effect.succeed(ExitCode.ok)
        const code =
          error._tag === "UsageError"
            ? ExitCode.usage
            : error._tag === "ChainBroken"
              ? ExitCode.broken
              : ExitCode.failed
        return report(error.message, code)
      }),
      Effect.catchAllDefect((defect) => report(`internal error: ${String(defect)}`, ExitCode.failed)),
      Effect.provide(NodeContext.layer)
    )
  )
}

// The fleet runs on its own copy of effect (the bin bundles one), so it is called as a promise.
const fleetMain = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Effect.tryPromise(() => import("@account-bills/fleet/cli")).pipe(
    Effect.matchEffect({
      onFailure: () =>
        report("bills fleet needs @account-bills/fleet: npm install @account-bills/fleet", ExitCode.failed),
      onSuccess: (fleet) =>
        Effect.catchAll(
          Effect.tryPromise((signal) => fleet.run(argv, signal)),
          (error) => report(`internal error: ${String(error.cause)}`, ExitCode.failed)
        )
    })
  )

const report = (message: string, code: number) =>
  Effect.sync(() => {
    process.stderr.write(`bills: ${message}\n`)
    return code
  })

/**
 * Maps how the program ended to the process exit code.
 *
 * @since 0.1.0
 * @category utils
 */
export const teardown = <E, A>(exit: Exit.Exit<E, A>, onExit: (code: number) => void): void => {
  if (Exit.isSuccess(exit)) onExit(typeof exit.value === "number" ? exit.value : ExitCode.ok)
  else onExit(Cause.isInterruptedOnly(exit.cause) ? ExitCode.interrupted : ExitCode.failed)
}
