/**
 * The help text of a command-line program built with `@effect/cli`, as our `bills` programs
 * print it: `@effect/cli` puts the same filler under every text option ("A user-defined piece of
 * text.") and shows a subcommand's usage without the program's name (`$ export …`), where a
 * person wants only the option's own words and a line they can paste (`$ bills export …`).
 *
 * @since 0.1.0
 */

const filler = /^\s*(A user-defined piece of text\.|A true or false value\.)\s*$/

// biome-ignore lint/suspicious/noControlCharactersInRegex: help may carry colour escapes
const ansi = /\x1b\[[0-9;]*m/g

/** Help is read in a terminal of this many columns. */
const columns = 80

/** `text` cut into lines of at most `width` columns at spaces, each led by `indent`. */
const wrap = (text: string, indent: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(" ").filter((each) => each !== "")) {
    if (line !== "" && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(indent + line)
  return lines
}

/**
 * A line of @effect/cli's command list (`  - export [--account …]   export an account's bills`),
 * padded to the widest usage (hundreds of columns), as a name and its description under it.
 */
const commandLine = /^\s*- (\S+)(?: \S.*?)?\s{2,}(\S.*)$|^\s*- (\S+)\s*$/

/**
 * The help text with the filler lines dropped ("A user-defined piece of text.", "A true or false
 * value."), each usage line led by `program` (`bills`, `bills fleet`) when it is not already, and
 * the command list as each command's name with its description under it, within 80 columns.
 *
 * @since 0.1.0
 * @category utils
 */
export const tidy = (text: string, program: string): string => {
  const lines = text.split("\n")
  const kept: Array<string> = []
  let inCommands = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (filler.test(line)) {
      // The filler and the blank line after it.
      if ((lines[i + 1] ?? "").trim() === "") i++
      continue
    }
    const listed = inCommands ? commandLine.exec(line.replace(ansi, "")) : null
    if (listed !== null) {
      kept.push(`  ${listed[1] ?? listed[3]}`, ...wrap(listed[2] ?? "", "      ", columns))
      continue
    }
    if (line.replace(ansi, "").trim() !== "") inCommands = line.replace(ansi, "").trim() === "COMMANDS"
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

/** How many single-character edits turn `a` into `b`. */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/**
 * What a mistyped subcommand says: `"adds" is not a command of bills fleet; did you mean add?
 * (add, remove, run, status, rekey)`, the suggestion only when one is within two edits (or the
 * typed word starts one).
 *
 * @since 0.2.0
 * @category utils
 */
export const unknownCommand = (typed: string, program: string, commands: ReadonlyArray<string>): string => {
  const ranked = commands
    .map((command) => ({ command, far: command.startsWith(typed) ? 0 : distance(typed, command) }))
    .sort((a, b) => a.far - b.far)
  const best = ranked[0]
  const suggestion = best !== undefined && best.far <= 2 ? `; did you mean ${best.command}?` : ""
  return `${JSON.stringify(typed)} is not a command of ${program}${suggestion} (${commands.join(", ")})`
}

/**
 * The first word of `args` that is not a flag or a flag's value, when `args` (what follows the
 * program's name) names no command of `commands`: the word to suggest a command for.
 *
 * @since 0.2.0
 * @category utils
 */
export const mistypedCommand = (args: ReadonlyArray<string>, commands: ReadonlyArray<string>): string | undefined => {
  const first = args.find((arg) => !arg.startsWith("-"))
  return first === undefined || commands.includes(first) ? undefined : first
}

/**
 * The flags every command takes, one line each, for a help's last section: @effect/cli's own,
 * which the OPTIONS sections leave out (`showBuiltIns: false`).
 *
 * @since 0.2.0
 * @category constants
 */
export const everyCommand: readonly [string, ...Array<string>] = [
  "--help, -h: this help; after a command, that command's",
  "--version: the version",
  "--log-level all|trace|debug|info|warning|error|fatal|none: the least level logged, anywhere on the line",
  "--completions sh|bash|fish|zsh: a completion script for the shell"
]

/**
 * `text` without its colour escapes, as piped output and one-line failures carry none.
 *
 * @since 0.2.0
 * @category utils
 */
export const withoutColour = (text: string): string => text.replace(ansi, "")

/**
 * The first line of what @effect/cli would print for a bad flag, without colours: the one line a
 * usage failure reports.
 *
 * @since 0.2.0
 * @category utils
 */
export const firstLine = (text: string): string =>
  withoutColour(text)
    .split("\n")
    .map((part) => part.trim())
    .find((part) => part !== "") ?? "invalid command line"
