/**
 * The fake exchange's fault plan: which request fails and how. Faults are decided at arrival:
 * scripted by call number (per operation, then over both operations), then the permanent
 * fault, then seeded random faults.
 */
import type { OperationName } from "../../Operation.js"
import { defaultFaultMix, type FakeFault, type RandomFaults, type ScriptedFault } from "../FakeProtocol.js"
import * as Prng from "../Prng.js"

/**
 * The faults a fake exchange starts with, and returns to on reset.
 */
export interface InitialFaults {
  readonly scripted?: ReadonlyArray<ScriptedFault> | undefined
  readonly permanent?: FakeFault | undefined
  readonly random?: RandomFaults | undefined
}

/**
 * The plan; mutable, used only inside `Effect.sync` by the fake exchange.
 */
export interface FaultPlan {
  readonly script: (faults: ReadonlyArray<ScriptedFault>) => void
  readonly setPermanent: (fault: FakeFault | undefined) => void
  readonly setRandom: (config: RandomFaults | undefined) => void
  /** No fault at all from now on. */
  readonly clear: () => void
  /** Back to the initial faults, the random draws restarting from their seed. */
  readonly restore: () => void
  /** The fault of a request: its number among its operation's calls and among all calls. */
  readonly pick: (operation: OperationName, operationCall: number, call: number) => FakeFault | undefined
}

/**
 * A fault plan starting from `initial`.
 */
export const makeFaultPlan = (initial: InitialFaults | undefined): FaultPlan => {
  let scripted = new Map<string, FakeFault>()
  let permanent: FakeFault | undefined
  let random: { readonly config: RandomFaults; readonly prng: Prng.Prng } | undefined

  const script = (faults: ReadonlyArray<ScriptedFault>): void => {
    for (const { nth, operation, fault } of faults) scripted.set(`${operation ?? "*"}:${nth}`, fault)
  }
  const setRandom = (config: RandomFaults | undefined): void => {
    random = config === undefined ? undefined : { config, prng: Prng.make(config.seed ?? 1) }
  }
  const drawRandom = (): FakeFault | undefined => {
    if (random === undefined || random.prng.next() >= random.config.rate) return undefined
    const mix = random.config.mix ?? defaultFaultMix
    const total = mix.reduce((sum, entry) => sum + entry.weight, 0)
    let point = random.prng.next() * total
    for (const entry of mix) {
      point -= entry.weight
      if (point < 0) return entry.fault
    }
    return mix[mix.length - 1]?.fault
  }
  const restore = (): void => {
    scripted = new Map()
    script(initial?.scripted ?? [])
    permanent = initial?.permanent
    setRandom(initial?.random)
  }
  restore()

  return {
    script,
    setPermanent: (fault) => {
      permanent = fault
    },
    setRandom,
    clear: () => {
      scripted = new Map()
      permanent = undefined
      random = undefined
    },
    restore,
    pick: (operation, operationCall, call) =>
      scripted.get(`${operation}:${operationCall}`) ?? scripted.get(`*:${call}`) ?? permanent ?? drawRandom()
  }
}
