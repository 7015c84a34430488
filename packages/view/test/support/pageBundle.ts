/**
 * Vitest's global setup: bundles the view's page into packages/view/dist/page once per run, as the
 * package's build does, so the tests serve the page of these sources.
 */
import { bundlePage } from "../../scripts/bundle-page.js"

export default async function setup() {
  await bundlePage()
}
