// The comparison with the official SDK that the README and docs/typescript.md show, measured:
// each input goes through `@agentclientprotocol/sdk` 2.4.0's own validators (its generated zod
// schemas, as its connection parses what it receives) and through this package's codec, and
// the table is written from what each did. The documents hold the table between
// `<!-- sdk-comparison -->` markers; this test fails when they differ from what it measured.
// `ACP_BLESS=1 npm test` writes the measured table into both.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";

import { sdkSchemas, type Zod } from "../bench/common.js";
import { Connection, DecodeError, isKnown, ndjson, v1, v2, type JsonObject } from "../src/index.js";

interface ZodError {
  issues?: { code?: string }[];
}

const require = createRequire(import.meta.url);
const sdkV1 = (await sdkSchemas("@agentclientprotocol/sdk")).zSessionNotification as Zod;
const sdkV2 = (await sdkSchemas("@agentclientprotocol/sdk/experimental/v2")).zUpdateSessionNotification as Zod;
// Its package.json is not exported: read from the directory above its entry point's `dist/`.
const sdkEntry = require.resolve("@agentclientprotocol/sdk");
const sdkManifest = readFileSync(sdkEntry.slice(0, sdkEntry.lastIndexOf("/dist/")) + "/package.json", "utf8");
const sdkVersion = (JSON.parse(sdkManifest) as { version: string }).version;

const code = (s: string) => "`" + s + "`";
const line = (params: JsonObject) => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params });

/** What the SDK's validator did with `params`: the value, or the issue code it threw. */
function sdk(zod: Zod, params: JsonObject): { value?: { update: JsonObject }; threw?: string } {
  try {
    return { value: zod.parse(params) as { update: JsonObject } };
  } catch (e) {
    return { threw: (e as ZodError).issues?.[0]?.code ?? String(e) };
  }
}

/** What this package's codec did with the line: the update and its reports, or the error. */
function ours(codec: typeof v1.codec | typeof v2.codec, params: JsonObject) {
  try {
    const { value, reports } = codec.decodeMessage(line(params));
    if (value.kind !== "notification" || value.method !== "session/update") throw new Error("not a session/update");
    return {
      update: value.params.update as unknown as JsonObject,
      reports,
      written: codec.encodeMessage(value as never),
    };
  } catch (e) {
    if (e instanceof DecodeError) return { error: `${e.message} at ${code(e.pointer)}` };
    throw e;
  }
}

/** A member after decoding: `kept`, `dropped`, or what it became. */
function member(update: JsonObject | undefined, name: string, sent: unknown): string {
  if (update === undefined) return "refused";
  if (!(name in update)) return "dropped";
  const got = update[name];
  if (got === undefined) return "becomes `undefined`";
  return JSON.stringify(got) === JSON.stringify(sent) ? "kept" : `becomes ${code(JSON.stringify(got))}`;
}

/** What a connection did with the lines it read: handler calls, what it logged or reported, what it wrote back. */
interface Received {
  handled: number;
  said: string[];
  written: string[];
}

/** Lines fed to a web stream, then closed when `close` (the SDK's connection fails when its input ends). */
function feeding(lines: string[], close: boolean): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(lines.map((l) => l + "\n").join(""));
  return new ReadableStream({
    start(c) {
      c.enqueue(bytes);
      if (close) c.close();
    },
  });
}

/** A web stream that keeps what is written to it. */
function keeping(written: string[]): WritableStream<Uint8Array> {
  return new WritableStream({ write: (chunk) => void written.push(new TextDecoder().decode(chunk).trim()) });
}

interface SdkApp {
  onNotification(method: unknown, f: (cx: { params: unknown }) => void): SdkApp;
  connectWith(stream: unknown, f: (cx: unknown) => Promise<void>): Promise<void>;
}
interface SdkModule {
  client(info: { name: string }): SdkApp;
  ndJsonStream(output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>): unknown;
  methods: { client: { session: { update: unknown } } };
}

/** The SDK's v1 client connection (`client().onNotification(...)`, `connectWith`) receiving `lines`. */
async function sdkConnection(lines: string[]): Promise<Received> {
  const acp = (await import("@agentclientprotocol/sdk")) as unknown as SdkModule;
  const r: Received = { handled: 0, said: [], written: [] };
  const error = console.error;
  console.error = (...args: unknown[]) => void r.said.push(args.map((a) => JSON.stringify(a)).join(" "));
  try {
    const app = acp.client({ name: "sdk-test" }).onNotification(acp.methods.client.session.update, () => {
      r.handled++;
    });
    const stream = acp.ndJsonStream(keeping(r.written), feeding(lines, false));
    await app.connectWith(stream, () => new Promise((resolve) => setTimeout(resolve, 100)));
  } finally {
    console.error = error;
  }
  return r;
}

/** This package's v1 client `Connection` receiving `lines`. */
async function ourConnection(lines: string[]): Promise<Received> {
  const r: Received = { handled: 0, said: [], written: [] };
  const c = new Connection(v1.codec, "client", ndjson(feeding(lines, true), keeping(r.written)), {
    initialized: true,
    onInvalid: (e) => void r.said.push(`${e.kind} (${e.code}) at ${e.pointer}`),
  });
  c.onNotification("session/update", () => {
    r.handled++;
  });
  await c.closed;
  return r;
}

// An unknown v1 update and a known one, received by a connection.
const unknownThenKnown = [
  line({ sessionId: "s", update: { sessionUpdate: "_x" } }),
  line({ sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } } }),
];
const received = { sdk: await sdkConnection(unknownThenKnown), ours: await ourConnection(unknownThenKnown) };

/** A connection's cell: the handler calls, what it said, and that nothing or what was written back. */
function receivedCell(r: Received, how: string): string {
  const said = r.said.length === 0 ? "nothing said" : `${how} ${r.said.map(code).join(", ")}`;
  const back = r.written.length === 0 ? "no reply" : `replies ${r.written.map(code).join(", ")}`;
  return `handler called ${r.handled} time(s), for the known update; ${said}; ${back}`;
}

function rows(): [string, string, string][] {
  const out: [string, string, string][] = [];
  // An unknown v1 update.
  {
    const params = { sessionId: "s", update: { sessionUpdate: "_x" } };
    const s = sdk(sdkV1, params);
    const o = ours(v1.codec, params);
    out.push([
      `v1 ${code("session/update")} with ${code('sessionUpdate: "_x"')}`,
      s.threw !== undefined ? `its schema's ${code("parse")} throws (${code(s.threw)})` : "decodes",
      o.error !== undefined ? `refused: ${o.error}` : "decodes",
    ]);
  }
  out.push([
    `a v1 client connection receiving that update, then a known one`,
    receivedCell(received.sdk, `${code("console.error")}:`),
    receivedCell(received.ours, `${code("onInvalid")} gets`),
  ]);
  // A lenient v1 member with an unknown value.
  {
    const params = {
      sessionId: "s",
      update: { sessionUpdate: "tool_call", toolCallId: "c", title: "t", kind: "_deploy" },
    };
    const s = sdk(sdkV1, params);
    const o = ours(v1.codec, params);
    const r = o.reports?.[0];
    out.push([
      `v1 ${code("tool_call")} with ${code('kind: "_deploy"')}`,
      `${code("kind")} ${member(s.value?.update, "kind", "_deploy")}, nothing reported`,
      `${code("kind")} ${member(o.update, "kind", "_deploy")}` +
        (r === undefined ? ", nothing reported" : `, reported: ${code(r.rule)} at ${code(r.pointer)}`),
    ]);
  }
  // v2 patch fields: an unknown enum value, a value of the wrong type, and null.
  for (const [name, value] of [
    ["kind", "_deploy"],
    ["title", 42],
    ["title", null],
  ] as const) {
    const params = { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "c", [name]: value } };
    const s = sdk(sdkV2, params);
    const o = ours(v2.codec, params);
    const r = o.reports?.[0];
    out.push([
      `v2 ${code("tool_call_update")} with ${code(`${name}: ${JSON.stringify(value)}`)}`,
      `${code(name)} ${member(s.value?.update, name, value)}`,
      `${code(name)} ${member(o.update, name, value)}` +
        (r === undefined ? "" : `, reported: ${code(r.rule)} at ${code(r.pointer)}`),
    ]);
  }
  // An unknown v2 arm.
  {
    const params = { sessionId: "s", update: { sessionUpdate: "_acme_progress", percent: 40 } };
    const s = sdk(sdkV2, params);
    const o = ours(v2.codec, params);
    const known = o.update !== undefined && isKnown(o.update as unknown as v2.SessionUpdate);
    out.push([
      `v2 ${code("session/update")} with ${code('sessionUpdate: "_acme_progress"')}`,
      s.threw !== undefined
        ? `throws (${code(s.threw)})`
        : `kept, ${code("percent")} ${member(s.value?.update, "percent", 40)}`,
      o.update === undefined
        ? "refused"
        : `kept, ${code("percent")} ${member(o.update, "percent", 40)}; ${code("isKnown")} is ${String(known)}`,
    ]);
  }
  // Members the schema does not name, and the order of members.
  {
    const params = { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "c", "x-vendor": 1 } };
    const s = sdk(sdkV2, params);
    const o = ours(v2.codec, params);
    out.push([
      `a member the schema does not name (${code('"x-vendor"')})`,
      member(s.value?.update, "x-vendor", 1),
      member(o.update, "x-vendor", 1),
    ]);
    const same = (text: string) => (text === JSON.stringify(params) ? "kept" : "changed");
    const ourText =
      o.written === undefined ? "" : JSON.stringify((JSON.parse(o.written) as { params: unknown }).params);
    out.push([
      "the order of members, written back",
      `${same(JSON.stringify(s.value))} (${code(JSON.stringify(s.value?.update))})`,
      `${same(ourText)}: the line re-encodes byte for byte`,
    ]);
  }
  // A repeated member name.
  {
    const text = '{"type":"text","text":"a","text":"b"}';
    let theirs: string;
    try {
      theirs = `${code("JSON.parse")} keeps ${code(JSON.stringify((JSON.parse(text) as { text: string }).text))}`;
    } catch {
      theirs = "refused";
    }
    let mine: string;
    try {
      mine = `decodes as ${code(JSON.stringify(v2.codec.decode("ContentBlock", text).value))}`;
    } catch (e) {
      mine = `refused: ${(e as Error).message}`;
    }
    out.push([code(text), theirs, mine]);
  }
  return out;
}

function table(): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const head = `| input | official SDK ${sdkVersion} | \`acp-bindings\` |\n|---|---|---|\n`;
  return (
    head +
    rows()
      .map((r) => `| ${r.map(cell).join(" | ")} |`)
      .join("\n") +
    "\n"
  );
}

const START = "<!-- sdk-comparison: written by ts/test/sdk.test.ts from what it measured -->\n";
const END = "<!-- /sdk-comparison -->";

test("the comparison tables of the README and docs/typescript.md are what the SDK and the package do", () => {
  const measured = table();
  for (const doc of ["../../../README.md", "../../../docs/typescript.md"]) {
    const file = new URL(doc, import.meta.url);
    const text = readFileSync(file, "utf8");
    const at = text.indexOf(START);
    const end = text.indexOf(END, at);
    assert.ok(at >= 0 && end > at, `${doc} has no ${START.trim()} ... ${END} block`);
    const shown = text.slice(at + START.length, end);
    if (process.env.ACP_BLESS === "1") {
      writeFileSync(file, text.slice(0, at + START.length) + measured + text.slice(end));
    } else {
      assert.equal(
        shown,
        measured,
        `${doc}: the table differs from what was measured (ACP_BLESS=1 npm test writes it)`,
      );
    }
  }
});
