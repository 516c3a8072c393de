//! Value types: arrays (lists and tuples), strings and integers, with the
//! rules each carries (`minItems` / `maxItems` / `uniqueItems`,
//! `minLength` / `maxLength` / `pattern`, formats and bounds).

use serde_json::Value;

use super::{Lowerer, Obj};
use crate::error::{Error, Result};
use crate::model::*;

impl Lowerer<'_> {
    /// A pair of lower and upper counts (`minItems` / `maxItems`,
    /// `minLength` / `maxLength`): non-negative integers, the lower not
    /// above the upper.
    fn counts(&self, s: &Obj, [lo, hi]: [&str; 2], what: &str, pointer: &str) -> Result<(Option<u64>, Option<u64>)> {
        let count = |key: &str| -> Result<Option<u64>> {
            match s.get(key) {
                None => Ok(None),
                Some(v) => v
                    .as_u64()
                    .map(Some)
                    .ok_or_else(|| self.err(pointer, format!("`{key}` must be a non-negative integer"))),
            }
        };
        let (min, max) = (count(lo)?, count(hi)?);
        if matches!((min, max), (Some(a), Some(b)) if a > b) {
            return Err(self.err(pointer, format!("contradictory `{lo}` and `{hi}`: no {what} has both")));
        }
        Ok((min, max))
    }

    /// `type: array`: a list (`items`), or a tuple (`prefixItems` and no
    /// further items).
    pub(super) fn array(&self, s: &Obj, pointer: &str, inline_name: &str, inline: &mut Vec<Def>) -> Result<Type> {
        let (min_items, max_items) = self.counts(s, ["minItems", "maxItems"], "array", pointer)?;
        let unique_items = self.flag(s, "uniqueItems", pointer)?;
        if s.contains_key("prefixItems") {
            return self.tuple(s, "prefixItems", (min_items, max_items), pointer, inline_name, inline);
        }
        if s.get("items").is_some_and(Value::is_array) {
            // Draft-07's spelling of a tuple: `items: [..]`, `additionalItems`.
            return self.tuple(s, "items", (min_items, max_items), pointer, inline_name, inline);
        }
        let items = s.get("items").ok_or_else(|| self.err(pointer, "an array without `items`"))?;
        let ip = format!("{pointer}/items");
        let item_schema = self.schema(items, &ip)?;
        let (item, nullable_items) = self.ty(item_schema, &ip, &format!("{inline_name}Item"), inline)?;
        self.unchecked_rule(&item, &ip)?;
        Ok(Type::Array { items: Box::new(item), min_items, max_items, unique_items, nullable_items })
    }

    /// `prefixItems` (or draft-07's `items: [..]`, `key`): a tuple, when the
    /// array holds exactly those items (`minItems` and `maxItems` equal to
    /// their count, or no further items: `items: false`, draft-07's
    /// `additionalItems: false`).
    fn tuple(
        &self,
        s: &Obj,
        key: &str,
        (min_items, max_items): (Option<u64>, Option<u64>),
        pointer: &str,
        inline_name: &str,
        inline: &mut Vec<Def>,
    ) -> Result<Type> {
        let pp = format!("{pointer}/{key}");
        let arr = s[key].as_array().ok_or_else(|| self.err(&pp, format!("`{key}` must be an array")))?;
        if arr.is_empty() {
            return Err(self.err(&pp, format!("empty `{key}`")));
        }
        let len = arr.len() as u64;
        let after = if key == "items" { "additionalItems" } else { "items" };
        let closed = s.get(after) == Some(&Value::Bool(false)) || max_items == Some(len);
        if !closed || s.get(after).is_some_and(|i| i != &Value::Bool(false)) {
            return Err(self.err(
                pointer,
                format!(
                    "`{key}` is understood as a tuple: no items after its {len} (`{after}: false` or `maxItems: {len}`)"
                ),
            ));
        }
        if min_items != Some(len) {
            return Err(self.err(
                pointer,
                format!("`{key}` is understood as a tuple: all {len} items present (`minItems: {len}`)"),
            ));
        }
        let mut items = Vec::new();
        let mut errors = Vec::new();
        for (i, item) in arr.iter().enumerate() {
            let ip = format!("{pp}/{i}");
            let lowered = self.schema(item, &ip).and_then(|o| {
                let (ty, nullable) = self.ty(o, &ip, &format!("{inline_name}{i}"), inline)?;
                self.unchecked_rule(&ty, &ip)?;
                Ok(TupleItem { ty, nullable })
            });
            match lowered {
                Ok(t) => items.push(t),
                Err(e) => errors.push(e),
            }
        }
        Error::all(errors)?;
        Ok(Type::Tuple(items))
    }

    pub(super) fn string(&self, s: &Obj, pointer: &str) -> Result<Type> {
        match s.get("contentEncoding").map(|v| v.as_str()) {
            None => {}
            Some(Some("base64")) => return Ok(Type::Base64),
            Some(_) => return Err(self.err(pointer, "unsupported `contentEncoding`: only `base64` is understood")),
        }
        let format = match s.get("format") {
            None => None,
            Some(Value::String(f)) => Some(f.clone()),
            Some(_) => return Err(self.err(pointer, "`format` must be a string")),
        };
        let (min_length, max_length) = self.counts(s, ["minLength", "maxLength"], "string", pointer)?;
        let pattern = match s.get("pattern") {
            None => None,
            Some(Value::String(p)) => {
                if let Err(e) = regex_lite::Regex::new(p) {
                    return Err(self.err(
                        &format!("{pointer}/pattern"),
                        format!("`pattern` {p:?} is not a regular expression the bindings can check: {e}"),
                    ));
                }
                Some(p.clone())
            }
            Some(_) => return Err(self.err(pointer, "`pattern` must be a string")),
        };
        if (min_length, max_length, &format, &pattern) == (Some(1), Some(1), &None, &None) {
            return Ok(Type::Char);
        }
        Ok(Type::String { format, min_length, max_length, pattern })
    }

    pub(super) fn integer(&self, s: &Obj, pointer: &str) -> Result<Type> {
        let format = match s.get("format").and_then(Value::as_str) {
            None => IntFormat::Int64,
            Some(f) => IntFormat::parse(f).ok_or_else(|| {
                self.err(
                    pointer,
                    format!(
                        "unsupported integer format `{f}`: expected int8, int16, int32, int64, int128, int, uint8, uint16, uint32, uint64, uint128 or uint"
                    ),
                )
            })?,
        };
        let (lo, hi) = format.range();
        let bound = |k: &str| -> Result<Option<i128>> {
            match s.get(k) {
                None => Ok(None),
                // `0.0` is the integer 0 in JSON Schema (schemars 0.8 writes it so).
                Some(v) => v
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| v.as_u64().map(i128::from))
                    .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i128))
                    .map(Some)
                    .ok_or_else(|| self.err(pointer, format!("`{k}` of an integer must be an integer"))),
            }
        };
        let (min, max) = (bound("minimum")?, bound("maximum")?);
        if min.is_some_and(|m| m > hi)
            || max.is_some_and(|m| m < lo)
            || matches!((min, max), (Some(a), Some(b)) if a > b)
        {
            return Err(
                self.err(pointer, "contradictory integer bounds: no value satisfies `minimum`, `maximum` and `format`")
            );
        }
        let ty = Type::Integer { format, min, max };
        if format == IntFormat::Uint128 && ty.checks_range() {
            return Err(self.err(pointer, "bounds tighter than the format on a `uint128` integer are not supported"));
        }
        Ok(ty)
    }
}
