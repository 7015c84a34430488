/**
 * The corpus's sample files, read: a header of `name: value` lines, a blank line, then the body
 * exactly as its source prints it. Nothing here re-writes a body; what a test serves is these bytes.
 */
import * as fs from "node:fs"

/** Where the samples live, beside this file. */
const samplesDir = new URL("./samples/", import.meta.url)

/**
 * One sample: its header fields and its body as the source prints it.
 */
export interface Sample {
  readonly name: string
  readonly header: Readonly<Record<string, string>>
  readonly body: string
  readonly operation: "fundingBills" | "spotBills" | "contractBills" | "serverTime" | "failure"
  readonly hosts: ReadonlyArray<"spot" | "contract">
  readonly version: "v2" | "v3"
  /** The statuses the sample is served with: the one the docs imply, or each one they leave open. */
  readonly statuses: ReadonlyArray<number>
  /** `body`: a whole answer; `record`: one record, which the test serves inside its page. */
  readonly kind: "body" | "record"
}

const field = (header: Readonly<Record<string, string>>, name: string, file: string): string => {
  const value = header[name]
  if (value === undefined) throw new Error(`${file}: no "${name}" header line`)
  return value
}

const oneOf = <A extends string>(value: string, allowed: ReadonlyArray<A>, what: string): A => {
  const found = allowed.find((candidate) => candidate === value)
  if (found === undefined) throw new Error(`${what}: "${value}" is not one of ${allowed.join(", ")}`)
  return found
}

/**
 * Reads one sample file. The body is everything after the first blank line, less the one newline
 * that ends the file.
 */
export const readSample = (name: string): Sample => {
  const file = `${name}.sample`
  const text = fs.readFileSync(new URL(file, samplesDir), "utf8")
  const split = text.indexOf("\n\n")
  if (split < 0) throw new Error(`${file}: no blank line after the header`)
  const header: Record<string, string> = {}
  for (const line of text.slice(0, split).split("\n")) {
    const colon = line.indexOf(":")
    if (colon < 0) throw new Error(`${file}: header line without a colon: ${line}`)
    header[line.slice(0, colon).trim()] = line.slice(colon + 1).trim()
  }
  const rest = text.slice(split + 2)
  const body = rest.endsWith("\n") ? rest.slice(0, -1) : rest
  return {
    name,
    header,
    body,
    operation: oneOf(
      field(header, "operation", file),
      ["fundingBills", "spotBills", "contractBills", "serverTime", "failure"] as const,
      `${file} operation`
    ),
    hosts: field(header, "host", file)
      .split(/\s+/)
      .map((host) => oneOf(host, ["spot", "contract"] as const, `${file} host`)),
    version: oneOf(field(header, "version", file), ["v2", "v3"] as const, `${file} version`),
    statuses: field(header, "status", file)
      .split(/\s+/)
      .map((status) => Number(status)),
    kind: oneOf(field(header, "kind", file), ["body", "record"] as const, `${file} kind`)
  }
}

/**
 * The names of every sample file, so a test can tell that none is left unread.
 */
export const sampleNames = (): ReadonlyArray<string> =>
  fs
    .readdirSync(samplesDir)
    .filter((file) => file.endsWith(".sample"))
    .map((file) => file.slice(0, -".sample".length))
    .sort()
