/**
 * Start-up of the `bills` command line as a whole process: the bundled bin's `bills --help`
 * against `node -e 0` on the same machine, interleaved so both see the same load, median of
 * several runs. The sources under tsx (what `pnpm bills` runs) are measured beside them as the
 * figure before bundling.
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../packages/node/dist/bin/bills.js", import.meta.url))
const source = fileURLToPath(new URL("../packages/node/src/bin/bills.ts", import.meta.url))

/** Milliseconds from spawn to exit of `node ...args`; rejects on a non-zero exit. */
const timeProcess = (args: ReadonlyArray<string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.on("error", reject)
    child.on("close", (code) => {
      if (code === 0) resolve(performance.now() - started)
      else reject(new Error(`node ${args.join(" ")} exited with ${code}: ${stderr.trim()}`))
    })
  })

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

/**
 * Median start-up times in milliseconds.
 */
export interface StartupFigures {
  readonly runs: number
  readonly nodeMillis: number
  readonly binMillis: number
  /** `bills --help` from the bundled bin over `node -e 0`. */
  readonly ratio: number
  /** `bills export --help`, which runs the program (only `--help` alone is answered from the build's text). */
  readonly exportHelpMillis: number
  readonly sourceRuns: number
  /** `bills --help` from the sources under tsx, as `pnpm bills` runs it. */
  readonly sourceMillis: number
}

/**
 * Measures `runs` interleaved pairs of `node -e 0` and the bundled `bills --help`, then
 * `sourceRuns` runs of the sources under tsx. The bin must have been built (`pnpm build`).
 */
export const measureStartup = async (runs: number, sourceRuns: number): Promise<StartupFigures> => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm build first`)
  // One unmeasured run of each warms the file system cache.
  await timeProcess(["-e", "0"])
  await timeProcess([bin, "--help"])
  const node: Array<number> = []
  const bills: Array<number> = []
  const exportHelp: Array<number> = []
  for (let i = 0; i < runs; i++) {
    node.push(await timeProcess(["-e", "0"]))
    bills.push(await timeProcess([bin, "--help"]))
    exportHelp.push(await timeProcess([bin, "export", "--help"]))
  }
  const sources: Array<number> = []
  for (let i = 0; i < sourceRuns; i++) {
    sources.push(await timeProcess(["--conditions=@account-bills/source", "--import", "tsx", source, "--help"]))
  }
  const nodeMillis = median(node)
  const binMillis = median(bills)
  return {
    runs,
    nodeMillis,
    binMillis,
    ratio: binMillis / nodeMillis,
    exportHelpMillis: median(exportHelp),
    sourceRuns,
    sourceMillis: median(sources)
  }
}
