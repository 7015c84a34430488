/**
 * A `layerRedis` budget built in the test's scope, standing for a process of its own: each call
 * makes its own Redis client and its own record of grants.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AddressBudget, type AddressBudgetOptions } from "../../src/index.js"

export const redisBudget = (url: string, options: AddressBudgetOptions) =>
  Effect.map(Layer.build(Layer.orDie(AddressBudget.layerRedis(url, options))), Context.get(AddressBudget))
