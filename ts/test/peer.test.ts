// The sans-IO peer on the transcripts the Rust peer runs too
// (tests/transcripts/peers.json, tests/tests/bindings/peer_transcripts.rs):
// the same events, error replies and lines, step by step.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { MessageError, Peer, v1, v2, type JsonValue, type PeerEvent } from "../src/index.js";

interface Step {
  receive?: string;
  respond?: { id: JsonValue; result: JsonValue };
  respond_error?: { id: JsonValue; error: { code: number; message: string } };
  request?: { method: string; params: JsonValue };
  expect: JsonValue;
}
interface Transcript {
  about: string;
  version: "v1" | "v2";
  side: "agent" | "client";
  initialized?: boolean;
  steps: Step[];
}

const file = new URL("../../../tests/transcripts/peers.json", import.meta.url);
const transcripts = (JSON.parse(readFileSync(file, "utf8")) as { transcripts: Transcript[] }).transcripts;

function summary(e: PeerEvent): JsonValue {
  switch (e.kind) {
    case "request":
      return { request: e.method, id: e.id };
    case "notification":
      return { notification: e.method };
    case "response":
      return { response: e.method, id: e.id };
    case "error":
      return { error: e.method ?? null, id: e.id ?? null, code: e.error.code };
    case "invalid":
      return {
        invalid: e.error.code,
        pointer: e.error.pointer,
        message: e.error.message,
        id: e.error.id ?? null,
        reply: e.reply ?? null,
      };
  }
}

function sent(make: () => string): JsonValue {
  try {
    return { send: make() };
  } catch (e) {
    if (e instanceof MessageError) return { refused: e.code, message: e.message };
    throw e;
  }
}

test("the transcripts are there", () => {
  assert.ok(transcripts.length >= 4);
});

for (const t of transcripts) {
  test(`transcript: ${t.about}`, () => {
    // The transcripts hold the crate's messages: the peer words them as the crate does.
    const codec = (t.version === "v1" ? v1.codec : v2.codec).withWording("crate");
    const peer = new Peer(codec, t.side, { initialized: t.initialized === true });
    t.steps.forEach((step, i) => {
      let got: JsonValue;
      if (step.receive !== undefined) got = summary(peer.receive(step.receive));
      else if (step.respond !== undefined) {
        const { id, result } = step.respond;
        got = sent(() => peer.respond(id, result));
      } else if (step.respond_error !== undefined) {
        const { id, error } = step.respond_error;
        got = sent(() => peer.respondError(id, error));
      } else if (step.request !== undefined) {
        const { method, params } = step.request;
        got = sent(() => peer.request(method, params).line);
      } else throw new Error(`step ${i}: a step the transcripts do not know`);
      assert.deepEqual(got, step.expect, `step ${i}: ${JSON.stringify(step)}`);
    });
  });
}
