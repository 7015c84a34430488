#!/usr/bin/env node
/**
 * Entry point of `pnpm bills`.
 *
 * `bills --help` alone is answered from the text the build rendered with this very program
 * (`scripts/binBundleOptions.ts`), without loading it: the top help lists every command, and
 * loading them all to print it took over three times the start of node itself. Anything else,
 * and the sources run under tsx (where the build defined no text), run the program.
 *
 * @since 0.1.0
 */
import { wantsColour } from "../cli/Colour.js"

declare const BILLS_TOP_HELP: { readonly plain: string; readonly colour: string } | undefined

const rendered = typeof BILLS_TOP_HELP === "undefined" ? undefined : BILLS_TOP_HELP
const args = process.argv.slice(2)

if (rendered !== undefined && args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
  process.stdout.write(wantsColour(process.stdout, process.env) ? rendered.colour : rendered.plain)
} else {
  const [{ runMain }, { main, teardown }] = await Promise.all([
    import("@effect/platform-node/NodeRuntime"),
    import("../cli/main.js")
  ])
  runMain(main(process.argv), { disableErrorReporting: true, teardown })
}
