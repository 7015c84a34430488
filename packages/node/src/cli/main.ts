/**
 * The `bills` program: subcommands, one-line failures and exit codes.
 *
 * Exit codes: 0 done, 1 failed (the exchange, the network, the output, the environment),
 * 2 bad flags or values (nothing was sent), 3 an audit found a broken chain, 4 a read from a store
 * that holds part of the history (a sync of it is unfinished; `--partial` reads it anyway),
 * 5 `--strict` met bills a tax tool's file could write only single-sided, 130 interrupted.
 *
 * @since 0.1.0
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { variables } from "../internal/environment.js"
import { packageVersion } from "../internal/version.js"
import { auditCommand } from "./AuditCommand.js"
import * as CliHelp from "./CliHelp.js"
import { exportCommand } from "./ExportCommand.js"
import { fakeExchangeCommand } from "./FakeExchangeCommand.js"
import * as Colour from "./Colour.js"
import { describeFailure, report } from "./FailureMessage.js"
import { syncCommand } from "./SyncCommand.js"

/**
 * Exit codes of the program.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = { ok: 0, failed: 1, usage: 2, broken: 3, incomplete: 4, flagged: 5, interrupted: 130 } as const

/**
 * `bills fleet …` for the help only: `main` hands every `bills fleet` command line to
 * `FleetCli.ts` (over @account-bills/fleet) before this tree sees it.
 */
const fleetCommand = Command.make("fleet").pipe(
  Command.withDescription(
    "many accounts kept current by runner processes on PostgreSQL (and Redis): bills fleet add|remove|run|status|rekey (needs @account-bills/fleet; bills fleet --help)"
  )
)

const subcommands = [exportCommand, auditCommand, syncCommand, fakeExchangeCommand("npx bills"), fleetCommand] as const

/** The names of the subcommands, for a mistyped one's suggestion. */
const commandNames = ["export", "audit", "sync", "fake-exchange", "fleet"]

const bills = Command.make("bills").pipe(
  Command.withDescription(
    "the bill history of a WEEX account (funding, spot, futures): export it (NDJSON, CSV, tax tools' files, journals), audit its balance chains, sync it into a store; fake-exchange runs a local exchange to try them on; fleet keeps many accounts current"
  ),
  Command.withSubcommands(subcommands)
)

/** The help's last section: where the credentials and settings come from. */
const environment = HelpDoc.sequence(
  HelpDoc.sequence(
    HelpDoc.h1("ENVIRONMENT"),
    HelpDoc.enumeration(
      Arr.map(variables, (variable) =>
        HelpDoc.p(
          `${variable.name}: ${variable.meaning}${variable.fallback === undefined ? " (required to reach the exchange)" : ` (default: ${variable.fallback})`}`
        )
      )
    )
  ),
  HelpDoc.sequence(
    HelpDoc.h1("EVERY COMMAND"),
    HelpDoc.enumeration(Arr.map(CliHelp.everyCommand, (line) => HelpDoc.p(line)))
  )
)

/**
 * What @effect/cli needs of the platform, and no more: NodeContext would also build a command
 * executor and a worker manager, code that every start of `bills` would load for nothing.
 */
const cliEnvironment = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

const cli = (version: string) => Command.run(bills, { name: "bills", version, footer: environment })

/**
 * @effect/cli's own flags (--help, --version, --log-level, --completions, --wizard) are left out
 * of every OPTIONS section: the footer says the ones that matter once, in our words.
 */
const cliConfig = CliConfig.layer({ showBuiltIns: false })

/**
 * Colours for a person at a terminal who has not asked for none, or where `FORCE_COLOR` asks.
 *
 * @since 0.1.0
 * @category utils
 */
export const wantsColour: (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv) => boolean = Colour.wantsColour

/**
 * `--log-level` is read by @effect/cli only before the subcommand; anywhere else it would be
 * refused although every subcommand's help lists it. Moved to the front, it works where written.
 *
 * @since 0.1.0
 * @category utils
 */
export const hoistLogLevel: (argv: ReadonlyArray<string>) => ReadonlyArray<string> = CliHelp.hoistLogLevel

/**
 * Runs the program on `argv` and resolves to the exit code; every failure has been reported
 * on stderr in one line by then.
 *
 * @since 0.1.0
 * @category utils
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number> => {
  // `bills fleet …` runs on @account-bills/fleet, an optional peer: `FleetCli.ts` is loaded only
  // when it runs (`--log-level` may come before it).
  const command = argv.slice(2).filter((arg, i, all) => !arg.startsWith("--log-") && !/^--log-/.test(all[i - 1] ?? ""))
  if (command[0] === "fleet") {
    return fleetMain(argv)
  }
  const cliErrors: Array<string> = []
  const colour = wantsColour(process.stdout, process.env)
  const console = Effect.map(Console.consoleWith(Effect.succeed), (console) => ({
    ...console,
    log: (...args: ReadonlyArray<unknown>) =>
      console.log(
        ...args.map((arg) =>
          typeof arg === "string" ? CliHelp.tidy(colour ? arg : CliHelp.withoutColour(arg), "bills") : arg
        )
      ),
    error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void cliErrors.push(args.map(String).join(" ")))
  }))
  return Effect.flatMap(console, (console) =>
    Effect.flatMap(packageVersion, (version) => cli(version)(hoistLogLevel(argv))).pipe(
      Effect.withConsole(console),
      Effect.as(ExitCode.ok),
      Effect.catchAll((error) => {
        if (ValidationError.isValidationError(error)) {
          if (ValidationError.isHelpRequested(error)) return Effect.succeed(ExitCode.ok)
          const mistyped = ValidationError.isCommandMismatch(error)
            ? CliHelp.mistypedCommand(command, commandNames)
            : undefined
          if (mistyped !== undefined) {
            return report(CliHelp.unknownCommand(mistyped, "bills", commandNames), ExitCode.usage)
          }
          return report(CliHelp.firstLine(cliErrors.join("\n")), ExitCode.usage)
        }
        // `| head` has all it wanted: like a finished export, not like a failure.
        if (error._tag === "OutputClosed") return Effect.succeed(ExitCode.ok)
        const code =
          error._tag === "UsageError"
            ? ExitCode.usage
            : error._tag === "ChainBroken"
              ? ExitCode.broken
              : error._tag === "StoreIncomplete"
                ? ExitCode.incomplete
                : error._tag === "FlaggedEvents"
                  ? ExitCode.flagged
                  : ExitCode.failed
        return Effect.flatMap(Clock.currentTimeMillis, (now) => report(describeFailure(error, now), code))
      }),
      Effect.catchAllDefect((defect) => report(`internal error: ${String(defect)}`, ExitCode.failed)),
      Effect.provide(Layer.merge(cliEnvironment, cliConfig))
    )
  )
}

// The published bin keeps `FleetCli.ts` in a bundle of its own that runs on the user's effect and
// fleet (scripts/bundle-bin.ts), not on the copy of effect this bundle carries: so it is called
// as a promise. Its import fails where @account-bills/fleet is not installed.
const fleetMain = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Effect.tryPromise(() => import("./FleetCli.js")).pipe(
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
