/**
 * The help text of a command-line program built with `@effect/cli`, as our `bills` programs
 * print it: `@effect/cli` puts the same filler under every text option ("A user-defined piece of
 * text.") and shows a subcommand's usage without the program's name (`$ export …`), where a
 * person wants only the option's own words and a line they can paste (`$ bills export …`).
 *
 * @since 0.1.0
 */

const filler = /^\s*A user-defined piece of text\.\s*$/

/**
 * The help text with the filler lines dropped and each usage line led by `program` (`bills`,
 * `bills fleet`) when it is not already.
 *
 * @since 0.1.0
 * @category utils
 */
export const tidy = (text: string, program: string): string => {
  const lines = text.split("\n")
  const kept: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (filler.test(line)) {
      // The filler and the blank line after it.
      if ((lines[i + 1] ?? "").trim() === "") i++
      continue
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a usage line may start with colour escapes
    const usage = /^(\s*(?:\x1b\[[0-9;]*m)*)\$ (.*)$/.exec(line)
    if (usage !== null) {
      const rest = usage[2] ?? ""
      const words = program.split(" ")
      const known = words.findIndex((_, at) => {
        const tail = words.slice(at).join(" ")
        return rest === tail || rest.startsWith(`${tail} `)
      })
      kept.push(
        `${usage[1] ?? ""}$ ${known === -1 ? `${program} ${rest}` : `${words.slice(0, known).join(" ")} ${rest}`.trimStart()}`
      )
      continue
    }
    kept.push(line)
  }
  return kept.join("\n")
}

/**
 * The arguments with `--log-level` moved to the front (after the runtime and the script):
 * `@effect/cli` reads it only before the subcommand; anywhere else it would be refused although
 * every subcommand's help lists it. Moved there, it works where written, for every command.
 *
 * @since 0.2.0
 * @category utils
 */
export const hoistLogLevel = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const [runtime = "", script = "", ...args] = argv
  const hoisted: Array<string> = []
  const rest: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg.startsWith("--log-level=")) hoisted.push(arg)
    else if (arg === "--log-level" && i + 1 < args.length) hoisted.push(arg, args[++i] as string)
    else rest.push(arg)
  }
  return [runtime, script, ...hoisted, ...rest]
}
