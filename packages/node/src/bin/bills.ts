#!/usr/bin/env node
/**
 * Entry point of `pnpm bills`.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { main, teardown } from "../cli/main.js"

NodeRuntime.runMain(main(process.argv), { disableErrorReporting: true, teardown })
