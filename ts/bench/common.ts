// What the benchmarks share: the official SDK's validator and alternating timed passes.

import { createRequire } from "node:module";
import { hrtime } from "node:process";
import { pathToFileURL } from "node:url";

/** A zod schema, as far as the benchmarks use it. */
export interface Zod {
  parse(v: unknown): unknown;
}

/** The official SDK's validator of received `session/update` params (not in its exports map: loaded by path). */
export async function official(): Promise<Zod> {
  const entry = createRequire(import.meta.url).resolve("@agentclientprotocol/sdk/experimental/v2");
  const file = new URL("../schema/zod.gen.js", pathToFileURL(entry));
  const mod = (await import(file.href)) as { zUpdateSessionNotification: Zod };
  return mod.zUpdateSessionNotification;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/**
 * Runs every side `rounds` times, alternating (a, b, a, b, ...) so that a
 * slower stretch of a noisy machine hits all of them: each side's median
 * pass, in milliseconds.
 */
export function alternate<K extends string>(sides: { [k in K]: () => unknown }, rounds: number): { [k in K]: number } {
  const times = {} as { [k in K]: number[] };
  for (const k of Object.keys(sides) as K[]) times[k] = [];
  for (let r = 0; r < rounds; r++) {
    for (const k of Object.keys(sides) as K[]) {
      const t = hrtime.bigint();
      sides[k]();
      times[k].push(Number(hrtime.bigint() - t) / 1e6);
    }
  }
  const out = {} as { [k in K]: number };
  for (const k of Object.keys(sides) as K[]) out[k] = median(times[k]);
  return out;
}
