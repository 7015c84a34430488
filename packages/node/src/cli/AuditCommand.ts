/**
 * `bills audit`: its flags. What runs them is loaded when the subcommand runs (AuditRun.ts),
 * so the bundled bin answers `--help` without the ledger and the client.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Flags from "./Flags.js"
import { windowFlags } from "./WindowFlags.js"

const flags = {
  account: Flags.account,
  ...windowFlags,
  db: Flags.readDb,
  partial: Flags.partial,
  label: Flags.label,
  format: Flags.auditFormat
}

/**
 * The `audit` subcommand.
 *
 * @since 0.1.0
 * @category commands
 */
export const auditCommand = Command.make("audit", flags, (parsed) =>
  Effect.flatMap(
    Effect.promise(() => import("./AuditRun.js")),
    (run) => run.auditWith(parsed)
  )
).pipe(Command.withDescription("check that every balance chain of the ledger holds (exit 3 if not)"))
