/**
 * What the orchestrator and the exchange process share: the local exchange's options, and
 * the little protocol between the orchestrator and its child processes.
 */
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { credentials, dataSet } from "./client.js"

/** Options of the lazy local exchange for the data set. */
export const lazyExchange = {
  order: "newest-first",
  bounds: "inclusive",
  rateLimit: false,
  credentials,
  generate: {
    lazy: true,
    seed: dataSet.seed,
    spot: dataSet.count,
    funding: 10_000,
    startMillis: dataSet.startMillis,
    endMillis: dataSet.startMillis + dataSet.count * dataSet.stepMillis - 1
  }
} as const

/**
 * Runs `node [...nodeFlags] [--import tsx] <script> ...args` and returns the last JSON line it
 * printed. A `.ts` script runs under tsx; a bundled `.mjs` runs on plain node.
 */
export const runChild = <A>(
  script: string,
  args: ReadonlyArray<string>,
  nodeFlags: ReadonlyArray<string> = []
): Promise<A> =>
  new Promise((resolve, reject) => {
    const loader = script.endsWith(".ts") ? ["--conditions=@account-bills/source", "--import", "tsx"] : []
    const child = spawn(process.execPath, [...nodeFlags, ...loader, script, ...args], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let last = ""
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("{")) last = line
    })
    child.on("error", reject)
    child.on("close", (code) => {
      if (code !== 0 || last === "") {
        reject(new Error(`${[...nodeFlags, script, ...args].join(" ")} exited with ${code}`))
      } else resolve(JSON.parse(last) as A)
    })
  })

/**
 * Bundles `entry` into one ESM file for plain node. The memory child runs bundled because the
 * tsx loader (a worker thread and a transform cache) adds about 60 MB of RSS that is not the
 * client's; the code that runs is the same.
 */
export const bundle = async (entry: string, outfile: string): Promise<string> => {
  const esbuild = await import("esbuild")
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    // The workspace packages from their sources, as everywhere in the repository.
    conditions: ["@account-bills/source"],
    target: "node20",
    logLevel: "error",
    // CommonJS dependencies (undici) call require on node builtins.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);'
    }
  })
  return outfile
}
