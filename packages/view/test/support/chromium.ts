/**
 * Debian's headless Chromium, driven by playwright-core: a fresh profile per launch, no network
 * of its own (no updates, no sync, no QUIC), and every console error and page error collected.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"

/** Where Debian's package installs it. */
export const chromiumPath = "/usr/bin/chromium"

/**
 * Whether the browser tests run: where Chromium is installed, and always in CI (`.ci/run`
 * installs it with apt-get), where a missing browser fails them rather than skips them.
 */
export const hasChromium = fs.existsSync(chromiumPath) || process.env.ACCOUNT_BILLS_CI === "1"

/** A browser with a fresh profile; `close` removes the profile too. */
export const launch = async (): Promise<{ readonly context: BrowserContext; readonly close: () => Promise<void> }> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "bills-view-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    acceptDownloads: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
  return {
    context,
    close: async () => {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    }
  }
}

/** A new page whose console errors and uncaught errors land in `errors`. */
export const watchedPage = async (
  context: BrowserContext
): Promise<{ readonly page: Page; readonly errors: Array<string> }> => {
  const page = await context.newPage()
  const errors: Array<string> = []
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`)
  })
  page.on("pageerror", (error) => errors.push(`page: ${error.message}`))
  return { page, errors }
}
