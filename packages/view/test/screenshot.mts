// Takes docs/images/view.png (pnpm tsx --conditions=@account-bills/source packages/view/test/screenshot.mts): the page over a seeded store, in headless Chromium.
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { exportToFile } from "../../node/src/cli/ViewCommand.js"
import { ViewMain } from "../src/index.js"
import { launch, watchedPage } from "./support/chromium.js"
import { label, makeStore, tempDir } from "./support/viewStore.js"
const db = await makeStore(tempDir("shot"), { seed: 51, funding: 600, spot: 600, contract: 300 })
const scope = await Effect.runPromise(Scope.make())
const { url } = await Effect.runPromise(
  ViewMain.serve({ db, label, port: 0, exportToFile, say: () => {}, warn: () => {} }).pipe(Scope.extend(scope))
)
const browser = await launch()
const { page, errors } = await watchedPage(browser.context)
await page.goto(`${url}${process.argv[2] ?? "?coin=BTC&from=2025-02-01"}`)
await page.waitForSelector("#audit .whole, #audit .gap")
await page.waitForSelector("#chart canvas")
await page.waitForTimeout(500)
await page.screenshot({
  path: process.argv[3] ?? "/tmp/view-shot.png",
  ...(process.argv[4] === "full"
    ? { fullPage: true }
    : { fullPage: true, clip: { x: 0, y: 0, width: 1400, height: 1560 } })
})
console.log("errors", errors)
await browser.close()
process.exit(0)
