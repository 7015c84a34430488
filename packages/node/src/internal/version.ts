/**
 * A package's version, as its package.json gives it: what `--version` prints.
 *
 * Read at run time from the package.json installed with every build of the package, by the
 * package's own name (a package may import itself through its "exports", which list
 * "./package.json"), so the same code works from the sources under tsx, from tsc's dist and
 * from the `bills` bundle. Not by a path relative to this module: in the bundle, split into
 * chunks, that path depends on the chunk this code lands in.
 */
import { createRequire } from "node:module"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The one field read. */
const Manifest = Schema.Struct({ version: Schema.String })

/**
 * The version in `name`'s package.json; a defect when it cannot be read, which an install always
 * has. `@account-bills/node` for `bills --version`; `@account-bills/fleet` for `bills fleet
 * --version`, the fleet the operator's runners run (an optional peer, installed apart).
 */
export const versionOf = (name: "@account-bills/node" | "@account-bills/fleet"): Effect.Effect<string> =>
  Effect.try(() => createRequire(import.meta.url)(`${name}/package.json`)).pipe(
    Effect.flatMap(Schema.decodeUnknown(Manifest)),
    Effect.map((manifest) => manifest.version),
    Effect.orDieWith((cause) => new Error(`cannot read the version in ${name}'s package.json`, { cause }))
  )

/** This package's version. */
export const packageVersion: Effect.Effect<string> = versionOf("@account-bills/node")
