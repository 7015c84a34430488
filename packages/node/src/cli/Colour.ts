/**
 * Whether `bills` writes colours: its own module, so that the bin's entry can answer `bills --help`
 * without loading the program.
 *
 * @since 0.2.0
 */

/**
 * Colours for a person at a terminal who has not asked for none (https://no-color.org), or
 * wherever `FORCE_COLOR` asks for them (https://force-color.org), e.g. through a pager.
 *
 * @since 0.2.0
 * @category utils
 */
export const wantsColour = (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean => {
  const forced = env.FORCE_COLOR
  if (forced !== undefined && forced !== "" && forced !== "0" && forced !== "false") return true
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")
}
