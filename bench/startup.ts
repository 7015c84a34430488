/**
 * Start-up of the `bills` command line as a whole process: the bundled bin's `bills --help`
 * against `node -e 0` on the same machine, interleaved so both see the same load, median of
 * several runs. The sources under tsx (what `pnpm bills` runs) are measured beside them as the
 * figure before bundling.
 */
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
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

/**
 * CPU milliseconds (user + system) of this process's children that have been waited for: fields
 * 16 and 17 of /proc/self/stat, in clock ticks (100 a second on Linux). A tick is 10 ms, so the
 * figure is only read as a sum over many runs. Undefined where /proc is missing.
 */
const childrenCpuMillis = (): number | undefined => {
  if (!existsSync("/proc/self/stat")) return undefined
  const stat = readFileSync("/proc/self/stat", "utf8")
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[13]) + Number(fields[14])) * 10
}

/** Runs `node ...args` and adds the CPU milliseconds it spent to `into` (a sum over runs). */
const cpuOf = async (args: ReadonlyArray<string>, into: { total: number | undefined }): Promise<number> => {
  const before = childrenCpuMillis()
  const millis = await timeProcess(args)
  const after = childrenCpuMillis()
  into.total =
    before === undefined || after === undefined || into.total === undefined ? undefined : into.total + after - before
  return millis
}

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
  /** CPU milliseconds per run of `node -e 0` and of `bills --help`, summed over the runs (undefined without /proc). */
  readonly nodeCpuMillis: number | undefined
  readonly binCpuMillis: number | undefined
  /** `bills --help` over `node -e 0` in CPU time, which the load of a shared machine moves less than wall time. */
  readonly cpuRatio: number | undefined
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
  const nodeCpu = { total: 0 as number | undefined }
  const binCpu = { total: 0 as number | undefined }
  for (let i = 0; i < runs; i++) {
    node.push(await cpuOf(["-e", "0"], nodeCpu))
    bills.push(await cpuOf([bin, "--help"], binCpu))
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
    nodeCpuMillis: nodeCpu.total === undefined ? undefined : nodeCpu.total / runs,
    binCpuMillis: binCpu.total === undefined ? undefined : binCpu.total / runs,
    cpuRatio:
      nodeCpu.total === undefined || binCpu.total === undefined || nodeCpu.total === 0
        ? undefined
        : binCpu.total / nodeCpu.total,
    exportHelpMillis: median(exportHelp),
    sourceRuns,
    sourceMillis: median(sources)
  }
}
