/**
 * The `Host` check against DNS rebinding: a page on another site that gets its name pointed at
 * 127.0.0.1 sends its own name as `Host`, so a request is answered only when `Host` names the
 * address the server listens on, or `localhost`, with the server's port.
 */

/** The `Host` values a server on `host:port` answers. */
export const allowedHosts = (host: string, port: number): ReadonlySet<string> => {
  const bracketed = host.includes(":") ? `[${host}]` : host
  return new Set([`${bracketed}:${port}`, `localhost:${port}`].map((value) => value.toLowerCase()))
}

/** Whether a request's `Host` header is one of `allowed`. */
export const hostAllowed = (allowed: ReadonlySet<string>, header: string | undefined): boolean =>
  header !== undefined && allowed.has(header.trim().toLowerCase())
