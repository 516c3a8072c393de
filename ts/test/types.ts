// Type-level tests: what the generated types let a user write, and refuse.
// Compiled by `npm run check` (tsc --strict); nothing here runs.
import { isKnown, v2, type Patch } from "../src/index.js";
import { v2 as unstable } from "../src/unstable.js";

// An open enum completes its known values and takes any other string.
export const kind: v2.ToolKind = "read";
export const vendorKind: v2.ToolKind = "_vendor_kind";
// A closed enum does not.
// @ts-expect-error not a value of `ElicitationSchemaType`
export const schemaType: v2.ElicitationSchemaType = "array";

// A tagged union narrows on its discriminator once its unknown arm is set aside;
// the unknown arm keeps its discriminator (and every other member).
export function describe(update: v2.SessionUpdate): string {
    if (!isKnown(update)) {
        return `unknown update ${update.sessionUpdate}`;
    }
    switch (update.sessionUpdate) {
        case "agent_message_chunk":
            return `chunk of ${update.messageId}`;
        case "tool_call_update":
            return `tool call ${update.toolCallId}`;
        default:
            return update.sessionUpdate;
    }
}

// An upsert's patch field has three states: omitted keeps, `null` clears, a value sets.
export const keep: v2.ToolCallUpdate = { toolCallId: "t1" };
export const clear: v2.ToolCallUpdate = { toolCallId: "t1", title: null };
export const set: v2.ToolCallUpdate = { toolCallId: "t1", title: "Reading", kind: "read" };
export const cleared: Patch<string> = null;
// A required property stays required.
// @ts-expect-error `toolCallId` is missing
export const missing: v2.ToolCallUpdate = { title: "x" };

// Objects keep the members their schema does not name.
export const extended: v2.ContentChunk = {
    messageId: "m1",
    content: { type: "text", text: "hi" },
    "x-vendor": 1,
};

// The unstable entry point has what only the unstable schema adds.
export type Subagent = unstable.SubagentUpdate;
