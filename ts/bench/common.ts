// What the benchmarks share: the official SDK's validator and alternating timed passes.

import { createRequire } from "node:module";
import { hrtime } from "node:process";
import { pathToFileURL } from "node:url";

/** A zod schema, as far as the benchmarks use it. */
export interface Zod {
  parse(v: unknown): unknown;
}

/**
 * The official SDK's generated zod schemas of one of its entry points (`@agentclientprotocol/sdk`
 * for v1, `.../experimental/v2`): not in its exports map, so loaded by path.
 */
export async function sdkSchemas(entry: string): Promise<{ [name: string]: Zod }> {
  const file = new URL("../schema/zod.gen.js", pathToFileURL(createRequire(import.meta.url).resolve(entry)));
  return (await import(file.href)) as { [name: string]: Zod };
}

/** The official SDK's validator of received v2 `session/update` params. */
export async function official(): Promise<Zod> {
  return (await sdkSchemas("@agentclientprotocol/sdk/experimental/v2")).zUpdateSessionNotification as Zod;
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
