// The decoders, encoders and messages of the generated modules, run by
// `npm test` (node's test runner over the compiled tests).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { DecodeError, isKnown, parse, v1, v2 } from "../src/index.js";
import * as unstable from "../src/unstable.js";

const corpus = new URL("../../../tests/corpus/", import.meta.url);

interface Case {
  type: string;
  note: string;
  input: unknown;
  expect?: unknown;
  reject?: string;
  order?: boolean;
  unstable?: boolean;
}

for (const version of ["v1", "v2"] as const) {
  test(`every ${version} corpus case decodes and is written back as the crate writes it`, () => {
    const dir = new URL(`${version}/`, corpus);
    // The corpus holds the crate's messages: compared in the crate's words.
    const codec = unstable[version].codec.withWording("crate") as unknown as {
      decode(name: string, text: string): { value: unknown };
      encode(name: string, value: unknown): string;
    };
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    assert.ok(files.length >= 20, `only ${files.length} cases`);
    for (const file of files) {
      const c = JSON.parse(readFileSync(new URL(file, dir), "utf8")) as Case;
      const text = JSON.stringify(c.input);
      if (c.reject !== undefined) {
        assert.throws(
          () => codec.decode(c.type, text),
          (e: unknown) => {
            assert.ok(e instanceof DecodeError, `${file}: ${String(e)}`);
            assert.ok(e.message.includes(c.reject as string), `${file}: ${e.message} lacks ${c.reject}`);
            return true;
          },
        );
        continue;
      }
      const again = codec.encode(c.type, codec.decode(c.type, text).value);
      // Byte for byte: every object keeps its members in the order they came.
      assert.equal(again, JSON.stringify(c.expect ?? c.input), `${file} (${c.note})`);
    }
  });
}

test("a patch field has three states, and what leniency dropped is reported by pointer", () => {
  const text =
    '{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":null,"kind":7,"x-vendor":{"b":1,"a":2}}}';
  const { value, reports } = v2.codec.decode("UpdateSessionNotification", text);
  const u = value.update;
  assert.ok(isKnown(u) && u.sessionUpdate === "tool_call_update");
  assert.equal(u.title, null, "null clears: kept");
  assert.equal("kind" in u, false, "a wrong-shaped patch field keeps: dropped");
  assert.equal("status" in u, false, "omitted keeps");
  assert.deepEqual(reports, [
    { pointer: "/update/kind", rule: "patch-keeps", message: "invalid type: integer `7`, expected a ToolKind string" },
  ]);
  assert.equal(
    v2.codec.encode("UpdateSessionNotification", value),
    '{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":null,"x-vendor":{"b":1,"a":2}}}',
  );
});

test("an unknown union arm keeps its tag and members and is written back as it came", () => {
  const text = '{"type":"_acme_widget","size":3,"nested":{"z":1,"a":[true,null]}}';
  const { value } = v2.codec.decode("ContentBlock", text);
  assert.equal(isKnown(value), false);
  assert.equal(value.type, "_acme_widget");
  assert.equal(v2.codec.encode("ContentBlock", value), text);
  // v1's unions are closed: the same object is an error there.
  assert.throws(() => v1.codec.decode("ContentBlock", text), /unknown `type` `_acme_widget` for ContentBlock/);
});

test("errors name what is wrong and where", () => {
  const check = (name: string, text: string, message: string, pointer: string) =>
    assert.throws(
      () => v2.codec.decode(name as "ContentBlock", text),
      (e: unknown) => e instanceof DecodeError && e.message === message && e.pointer === pointer,
    );
  check(
    "ContentBlock",
    '{"type":"text","text":7}',
    "invalid `text` variant of ContentBlock: invalid type: integer `7`, expected a string",
    "/text",
  );
  check(
    "ContentBlock",
    '{"type":"text","text":"a","text":"b"}',
    "invalid `text` variant of ContentBlock: duplicate field `text`",
    "/text",
  );
  // A repeated name fails the message even inside a lenient member (`_meta`).
  check("TextContent", '{"text":"a","_meta":{"k":1,"k":2}}', "duplicate field `k`", "/_meta/k");
  check(
    "TerminalSize",
    '{"cols":0,"rows":24}',
    "0 is out of range: expected 1 to 65535 (#/$defs/TerminalSize/properties/cols)",
    "/cols",
  );
  check("ContentBlock", '{"type":"text"', "EOF while parsing an object at line 1 column 14", "");
  const u16 = "an integer from 0 to 65535";
  check("ProtocolVersion", "1.0", `invalid type: floating point \`1.0\`, expected ${u16}`, "");
  // A whole number written as a float is found when an integer property asks, wherever it is.
  check("TerminalSize", '{"cols":80.0,"rows":24}', `invalid type: floating point \`80.0\`, expected ${u16}`, "/cols");
  check("TextContent", '{"text":"\\ud800"}', "unexpected end of hex escape at line 1 column 16", "");
});

test("errors are worded in JSON's and TypeScript's terms, or the crate's on request", () => {
  // [definition, text, pointer, JSON's words, the crate's words]
  const cases: [string, string, string, string, string][] = [
    ["ProtocolVersion", "70000", "", "invalid value: integer `70000`, expected an integer from 0 to 65535", "u16"],
    ["ProtocolVersion", '"1"', "", 'invalid type: string "1", expected an integer from 0 to 65535', "u16"],
    [
      "PromptRequest",
      '{"sessionId":"s","prompt":{}}',
      "/prompt",
      "invalid type: object, expected an array",
      "map, expected a sequence",
    ],
    ["TerminalSize", "[80,24]", "", "invalid type: array, expected a TerminalSize object", "sequence"],
    ["ContentBlock", '{"type":"text"', "", "EOF while parsing an object at line 1 column 14", "object"],
    ["RequestId", "true", "", "data did not match any variant of RequestId (number: ", "(Number: "],
    ["RequestId", "[true]", "", "invalid type: array, expected an integer from -9223372036854775808", "sequence"],
  ];
  const crate = v2.codec.withWording("crate");
  for (const [name, text, pointer, json, inCrate] of cases) {
    const decode = (c: typeof crate) => {
      try {
        return c.decode(name as "ContentBlock", text);
      } catch (e) {
        assert.ok(e instanceof DecodeError, String(e));
        assert.equal(e.pointer, pointer, `${name} ${text}`);
        return e.message;
      }
    };
    const [ours, theirs] = [decode(v2.codec), decode(crate)];
    assert.ok(typeof ours === "string" && ours.includes(json), `${name} ${text}: ${String(ours)}`);
    assert.ok(typeof theirs === "string" && theirs.includes(inCrate), `${name} ${text}: ${String(theirs)}`);
  }
  // A broken line, an array's end: serde_json says "a list", JSON "an array".
  assert.throws(() => v2.codec.decodeMessage("[1"), /not JSON: EOF while parsing an array at line 1 column 2/);
  assert.throws(() => crate.decodeMessage("[1"), /not JSON: EOF while parsing a list at line 1 column 2/);
  assert.throws(() => parse("[1"), /EOF while parsing an array/);
  assert.throws(() => parse("[1", { wording: "crate" }), /EOF while parsing a list/);
  assert.throws(() => parse("[tru]"), /expected `true`, `false` or `null`/);
  // A lenient member's report is worded too.
  const meta = '{"text":"a","_meta":[1]}';
  assert.equal(v2.codec.decode("TextContent", meta).reports[0]?.message, "invalid type: array, expected an object");
  assert.equal(crate.decode("TextContent", meta).reports[0]?.message, "invalid type: sequence, expected a map");
});

test("the reader refuses what JSON.parse lets through", () => {
  assert.throws(() => parse('{"a":1,"a":2}'), /duplicate field `a`/);
  assert.throws(() => parse('"\\ud800"'), /unexpected end of hex escape/);
  assert.deepEqual(parse('{"a":1,"a":2}', { duplicates: "last" }).value, { a: 2 });
  assert.deepEqual(parse('{"__proto__":{"x":1}}').value, JSON.parse('{"__proto__":{"x":1}}'));
  // What JSON.parse reads but does not keep sends a text to the careful reader, wherever it is.
  assert.deepEqual([...(parse('{"a":1.0,"b":[2e0],"c":{"d":-3.00}}').floats ?? [])], ["/a", "/b/0", "/c/d"]);
  assert.throws(() => parse('{"k":"x","n":{"a":1},"k":"y"}'), /duplicate field `k`/);
  assert.throws(() => parse('{"k" :1, "k"\t:2}'), /duplicate field `k`/);
  assert.throws(() => parse('["\\udc00"]'), /lone leading surrogate/);
  // serde_json reads an escape's four characters before it looks at them.
  assert.throws(() => parse('["\\updat"]'), /invalid escape at line 1 column 8/);
  // A character's column is the bytes before it, plus one, whatever its own length.
  assert.throws(() => parse("é x"), /expected value at line 1 column 1$/);
  assert.throws(() => parse("[1e400]"), /number out of range/);
  assert.throws(() => parse("[".repeat(128) + "]".repeat(128)), /recursion limit exceeded/);
  assert.equal(parse("[".repeat(127) + "]".repeat(127)).value !== undefined, true);
  assert.deepEqual(parse('{"a" : 1, "b"\n:"\\ud83d\\ude00"}').value, { a: 1, b: "😀" });
  // Text the pattern meets inside strings only takes the careful path.
  assert.deepEqual(parse('{"s":"say \\"a\\": 1.5, [2e3"}').value, { s: 'say "a": 1.5, [2e3' });
});

test("validate checks a value built at run time, with no leniency", () => {
  const bad = { toolCallId: "c1", kind: 7 } as unknown as v2.ToolCallUpdate;
  assert.match(String(v2.codec.validate("ToolCallUpdate", bad)?.message), /expected a ToolKind string/);
  assert.equal(v2.codec.validate("ToolCallUpdate", { toolCallId: "c1", kind: "read", title: null }), undefined);
});

test("messages are typed by method and direction, responses by the request they answer", () => {
  const pending = new Map([["2", "session/prompt"]]);
  const n = v2.codec.decodeMessage(
    '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":"hi"}}}}',
  ).value;
  assert.ok(n.kind === "notification" && n.method === "session/update");
  assert.equal(n.params.sessionId, "s");
  const line = '{"jsonrpc":"2.0","id":2,"result":{"messageId":"u1","x":1}}';
  const r = v2.codec.decodeMessage(line, (id) => pending.get(JSON.stringify(id))).value;
  assert.ok(r.kind === "response" && r.method === "session/prompt");
  assert.equal(r.result.messageId, "u1");
  assert.equal(v2.codec.encodeMessage(r), line);
  // An empty payload comes back in the form it came: omitted, or `null`.
  for (const l of [
    '{"jsonrpc":"2.0","id":1,"method":"session/list"}',
    '{"jsonrpc":"2.0","id":1,"method":"session/list","params":null}',
  ]) {
    assert.equal(v2.codec.encodeMessage(v2.codec.decodeMessage(l).value), l);
  }
  assert.throws(
    () => v2.codec.decodeMessage('{"jsonrpc":"2.0","id":3,"result":{}}'),
    /a response whose request is not known/,
  );
  assert.throws(
    () => v2.codec.decodeMessage('{"jsonrpc":"2.0","id":3,"method":"session/frobnicate","params":{}}'),
    (e: unknown) => e instanceof DecodeError && e.pointer === "/method",
  );
  const ext = v2.codec.decodeMessage('{"jsonrpc":"2.0","method":"_acme/ping","params":[1]}').value;
  assert.ok(ext.kind === "notification" && ext.method === "_acme/ping");
  assert.deepEqual(ext.params, [1]);
});

test("every trace line that decodes without a report is written back byte for byte", () => {
  const traces = new URL("../../../tests/traces/", import.meta.url);
  let checked = 0;
  for (const file of readdirSync(traces)) {
    const codec = file.startsWith("v1") ? v1.codec : v2.codec;
    const pending = new Map<string, string>();
    for (const line of readFileSync(new URL(file, traces), "utf8").split("\n")) {
      let decoded;
      try {
        decoded = codec.decodeMessage(line, (id) => pending.get(JSON.stringify(id)));
      } catch {
        continue; // the traces' refused lines
      }
      const m = decoded.value;
      if (m.kind === "request") pending.set(JSON.stringify(m.id), m.method);
      if (decoded.reports.length > 0) continue;
      assert.equal(codec.encodeMessage(m as never), line, `${file}: ${line}`);
      checked++;
    }
  }
  assert.ok(checked >= 20, `only ${checked} lines`);
});
