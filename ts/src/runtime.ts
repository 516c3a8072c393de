// The hand-written support the generated modules build on (`src/generated/`).

/** Any JSON value, as `JSON.parse` gives it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object: `_meta` and the other free-form objects. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * What an object of the schema keeps besides its properties: every member
 * the schema does not name, as received (an object's schema allows them
 * unless it says `additionalProperties: false`). The generated types leave
 * them out, so that a misspelled member is a compile error; a decoded value
 * still holds them and is written back with them. To read them, widen the
 * type: `(info as v2.Implementation & Extensible)["x-vendor"]`.
 */
export interface Extensible {
  /** Members the schema does not name, kept as received. */
  [key: string]: unknown;
}

/**
 * A field of an upsert's patch (ACP v2), in three states: the property
 * omitted keeps the stored value, `null` clears it, a value sets it. The
 * field is optional (`title?: Patch<string>`): "omitted" is its absence.
 */
export type Patch<T> = T | null;

/**
 * The marker of a union arm this version does not know. The arm is the
 * object as received (its discriminator and every member, in their order),
 * so it is written back exactly; the marker is a symbol, which
 * `JSON.stringify` does not write.
 */
export const unknownArm: unique symbol = Symbol("acp.unknownArm");

/**
 * A union arm this version does not know, kept whole: `tag` names its
 * discriminator property (`"sessionUpdate"`), whose value is any string.
 * {@link isKnown} sets it aside, after which the union narrows on its tag
 * and the known tags complete in an editor. {@link extensionArm} writes one.
 */
export type UnknownArm<Tag extends string> = { readonly [unknownArm]: true } & { readonly [P in Tag]: string } & {
  readonly [key: string]: JsonValue;
};

/**
 * An arm of an open union that this version does not define (an extension,
 * `_vendor_progress`, or one of a newer version), to send: its
 * discriminator `tag` set to `value`, and its other members.
 *
 * ```ts
 * const update: v2.SessionUpdate = extensionArm("sessionUpdate", "_acme_progress", { percent: 40 });
 * ```
 */
export function extensionArm<Tag extends string>(tag: Tag, value: string, members: JsonObject = {}): UnknownArm<Tag> {
  const arm: JsonObject = { [tag]: value, ...members };
  arm[tag] = value;
  Object.defineProperty(arm, unknownArm, { value: true, enumerable: false });
  return arm as UnknownArm<Tag>;
}

/** A value of an open enum this version does not know: any string, while the known ones still complete. */
export type OpenString = string & {};

/** A value of an open integer enum this version does not know. */
export type OpenNumber = number & {};

/** Whether `value` is one of the union's known arms (not an {@link UnknownArm}). */
export function isKnown<T>(value: T): value is Exclude<T, { readonly [unknownArm]: true }> {
  return typeof value !== "object" || value === null || !(unknownArm in value);
}
