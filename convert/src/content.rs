//! Hand-written rules: content, chunks, errors, commands, elicitation and
//! permission outcomes.

// Targets are built with `new`/`default` and then assigned: their unstable
// shapes have more fields, and this code compiles in both builds.
#![allow(clippy::field_reassign_with_default)]

use super::{Cx, Fail, LossKind, ToV1, ToV2, UnstableFields};
use acp_bindings::runtime::Nullable;
use acp_bindings::{v1, v2};

/// `Ok` with the crate's `Fail`.
type R<T> = Result<T, Fail>;

// ---- Diff -------------------------------------------------------------------------
//
// v1: `path`, `oldText` (absent or null for a new file), `newText`.
// v2: `changes` (one change: `add` without old text, else `modify`, with the
// path) and a `git_patch` rewriting the old text into the new one in one hunk,
// so the patch carries both texts whole.

impl ToV2 for v1::Diff {
    type V2 = v2::Diff;
    fn to_v2(self, cx: &mut Cx) -> R<v2::Diff> {
        self.check_unstable(cx)?;
        let old = match self.old_text {
            Nullable::Value(t) => Some(t),
            _ => None,
        };
        let path = v2::AbsolutePath(super::id(self.path.clone()));
        let op = match old {
            Some(_) => v2::DiffChangeOperation::Modify(v2::DiffPathChange::new(path)),
            None => v2::DiffChangeOperation::Add(v2::DiffPathChange::new(path)),
        };
        let mut change = v2::DiffChange::new(op);
        change.file_type = Nullable::Value(v2::DiffFileType::Text);
        let text = git_patch(&self.path, old.as_deref(), &self.new_text);
        let mut out = v2::Diff::new(vec![change]);
        out.patch = Nullable::Value(v2::DiffPatch::new(v2::DiffPatchFormat::GitPatch, text));
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::Diff {
    type V1 = v1::Diff;
    fn to_v1(self, cx: &mut Cx) -> R<v1::Diff> {
        self.check_unstable(cx)?;
        // v1 shows one file's old and new text: take them from the patch.
        if self.changes.len() != 1 {
            return Err(cx.at("changes", |cx| {
                cx.unconvertible(format!(
                    "a diff of {} file changes; a v1 diff shows exactly one file",
                    self.changes.len()
                ))
            }));
        }
        let change = self.changes.into_iter().next().expect("one change");
        cx.enter("changes");
        cx.enter_index(0);
        if !change.mime_type.is_absent() {
            cx.loss_at("mimeType", LossKind::Dropped, "a v1 diff has no MIME type")?;
        }
        if !change.meta.is_absent() {
            cx.loss_at("_meta", LossKind::Dropped, "a v1 diff has no per-change `_meta`")?;
        }
        match &change.file_type {
            Nullable::Value(v2::DiffFileType::Text) | Nullable::Absent | Nullable::Null => {}
            _ => {
                return Err(
                    cx.at("fileType", |cx| cx.unconvertible("a v1 diff shows text: this change is not to a text file"))
                )
            }
        }
        cx.leave();
        cx.leave();
        let (path, added, extra) = match change.operation {
            v2::DiffChangeOperation::Add(p) => (p.path, true, p.additional_properties),
            v2::DiffChangeOperation::Modify(p) => (p.path, false, p.additional_properties),
            _ => {
                return Err(cx.at("changes", |cx| {
                    cx.at("0", |cx| cx.unconvertible("a delete, move or copy has no v1 diff form"))
                }))
            }
        };
        if !extra.is_empty() {
            cx.at("changes", |cx| {
                cx.at("0", |cx| cx.dropped("a v1 diff has no place for the change's other properties"))
            })?;
        }
        let patch = match self.patch {
            Nullable::Value(p) if p.format == v2::DiffPatchFormat::GitPatch => {
                if !p.meta.is_absent() || !p.additional_properties.is_empty() {
                    cx.loss_at(
                        "patch",
                        LossKind::Dropped,
                        "a v1 diff has no place for the patch's `_meta` or other properties",
                    )?;
                }
                p.text
            }
            _ => {
                return Err(cx.at("patch", |cx| {
                    cx.unconvertible("a diff without git patch text: v1 needs the file's old and new text")
                }))
            }
        };
        let (old, new) = match texts_from_patch(&patch) {
            Some(t) => t,
            None => {
                return Err(
                    cx.at("patch", |cx| cx.at("text", |cx| cx.unconvertible("the patch text could not be read")))
                )
            }
        };
        // Whole files only when the patch is exactly the rewrite this
        // converter writes; any other patch may show only part of a file.
        let whole = git_patch(&path.0, if added { None } else { Some(&old) }, &new) == patch;
        if !whole {
            cx.loss_at(
                "patch",
                LossKind::Approximated,
                "the v1 diff shows the patch's hunks as the old and new text, not the whole files",
            )?;
        }
        let mut out = v1::Diff::new(String::from(&*path.0), new);
        out.old_text = if added { Nullable::Absent } else { Nullable::Value(old) };
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

/// A `git_patch` rewriting `old` (none: a new file) into `new` in one hunk.
fn git_patch(path: &str, old: Option<&str>, new: &str) -> String {
    let mut out = format!("diff --git {path} {path}\n");
    let lines = |t: &str| -> Vec<String> { t.split_inclusive('\n').map(str::to_owned).collect() };
    let (o, n) = (old.map(lines).unwrap_or_default(), lines(new));
    match old {
        None => out.push_str(&format!("new file mode 100644\n--- /dev/null\n+++ {path}\n")),
        Some(_) => out.push_str(&format!("--- {path}\n+++ {path}\n")),
    }
    let start = |len: usize| if len == 0 { 0 } else { 1 };
    out.push_str(&format!("@@ -{},{} +{},{} @@\n", start(o.len()), o.len(), start(n.len()), n.len()));
    for (sign, ls) in [('-', &o), ('+', &n)] {
        for l in ls {
            out.push(sign);
            out.push_str(l);
            if !l.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// The old and new text of a one-file patch: context and `-` lines, context
/// and `+` lines, hunk after hunk.
fn texts_from_patch(patch: &str) -> Option<(String, String)> {
    let (mut old, mut new) = (String::new(), String::new());
    let mut hunks = 0;
    let mut last: Option<char> = None;
    for line in patch.split_inclusive('\n') {
        if line.starts_with("@@ ") {
            hunks += 1;
            continue;
        }
        if hunks == 0 {
            continue;
        }
        if line.starts_with("\\ ") {
            // "\ No newline at end of file": the previous line had none.
            let target = if last == Some('-') { &mut old } else { &mut new };
            if target.ends_with('\n') {
                target.pop();
            }
            if last == Some(' ') && old.ends_with('\n') {
                old.pop();
            }
            continue;
        }
        match line.chars().next() {
            Some('-') => old.push_str(&line[1..]),
            Some('+') => new.push_str(&line[1..]),
            Some(' ') => {
                old.push_str(&line[1..]);
                new.push_str(&line[1..]);
            }
            Some(_) if line.starts_with("diff --git") && hunks > 0 => return None,
            _ => continue,
        }
        last = line.chars().next();
    }
    (hunks > 0).then_some((old, new))
}

// ---- Terminal -------------------------------------------------------------------------

impl ToV2 for v1::Terminal {
    type V2 = v2::Terminal;
    fn to_v2(self, cx: &mut Cx) -> R<v2::Terminal> {
        Err(cx.unconvertible(
            "v1 terminal content names a client-run terminal (terminal/* methods), which v2 does not have; \
             v2 terminals are agent-run",
        ))
    }
}

impl ToV1 for v2::Terminal {
    type V1 = v1::Terminal;
    fn to_v1(self, cx: &mut Cx) -> R<v1::Terminal> {
        Err(cx.unconvertible(
            "v2 terminal content names an agent-run terminal, which a v1 client cannot show (v1 terminals are client-run)",
        ))
    }
}

// ---- ContentChunk: v2 requires `messageId` --------------------------------------------

impl ToV2 for v1::ContentChunk {
    type V2 = v2::ContentChunk;
    fn to_v2(self, cx: &mut Cx) -> R<v2::ContentChunk> {
        self.check_unstable(cx)?;
        let id = match self.message_id {
            Nullable::Value(id) => id.to_v2(cx)?,
            // A made-up opaque id is not a loss; the adapters give one id per
            // run of chunks instead.
            _ => v2::MessageId(super::id(cx.fresh_id())),
        };
        let content = cx.at("content", |cx| self.content.to_v2(cx))?;
        let mut out = v2::ContentChunk::new(id, content);
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::ContentChunk {
    type V1 = v1::ContentChunk;
    fn to_v1(self, cx: &mut Cx) -> R<v1::ContentChunk> {
        self.check_unstable(cx)?;
        // Not through `cx.at`: a closure holding the block copied it once more.
        cx.enter("content");
        let content = self.content.to_v1(cx)?;
        cx.leave();
        let mut out = v1::ContentChunk::new(content);
        out.message_id = Nullable::Value(self.message_id.to_v1(cx)?);
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

// ---- ElicitationSchema: v2 requires `type` and `properties` ---------------------------

impl ToV2 for v1::ElicitationSchema {
    type V2 = v2::ElicitationSchema;
    fn to_v2(self, cx: &mut Cx) -> R<v2::ElicitationSchema> {
        self.check_unstable(cx)?;
        // Both default in the v1 schema: `type` to "object", `properties` to {}.
        let ty = match self.r#type {
            Some(t) => cx.at("type", |cx| t.to_v2(cx))?,
            None => v2::ElicitationSchemaType::Object,
        };
        let properties = cx.at("properties", |cx| self.properties.unwrap_or_default().to_v2(cx))?;
        let mut out = v2::ElicitationSchema::new(ty, properties);
        out.title = self.title;
        out.required = self.required;
        out.description = self.description;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::ElicitationSchema {
    type V1 = v1::ElicitationSchema;
    fn to_v1(self, cx: &mut Cx) -> R<v1::ElicitationSchema> {
        self.check_unstable(cx)?;
        let mut out = v1::ElicitationSchema::default();
        out.r#type = Some(cx.at("type", |cx| self.r#type.to_v1(cx))?);
        out.properties = Some(cx.at("properties", |cx| self.properties.to_v1(cx))?);
        out.title = self.title;
        out.required = self.required;
        out.description = self.description;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

// ---- Error: v2 types `data` by error code ----------------------------------------------

impl ToV2 for v1::Error {
    type V2 = v2::Error;
    fn to_v2(self, cx: &mut Cx) -> R<v2::Error> {
        self.check_unstable(cx)?;
        let code = cx.at("code", |cx| self.code.to_v2(cx))?;
        let mut out = v2::Error::new(code, self.message);
        out.data = match self.data {
            None => Nullable::Absent,
            Some(serde_json::Value::Null) => Nullable::Null,
            Some(d) => Nullable::Value(cx.at("data", |cx| super::redecode::<v2::ErrorData>(cx, d, "the error data"))?),
        };
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::Error {
    type V1 = v1::Error;
    fn to_v1(self, cx: &mut Cx) -> R<v1::Error> {
        self.check_unstable(cx)?;
        let code = cx.at("code", |cx| self.code.to_v1(cx))?;
        let mut out = v1::Error::new(code, self.message);
        out.data = match self.data {
            Nullable::Absent => None,
            Nullable::Null => Some(serde_json::Value::Null),
            Nullable::Value(d) => Some(serde_json::to_value(&d).unwrap_or(serde_json::Value::Null)),
        };
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

// ---- RequestPermissionOutcome: v1 `cancelled` is a bare tag ------------------------------

impl ToV2 for v1::RequestPermissionOutcome {
    type V2 = v2::RequestPermissionOutcome;
    #[allow(unreachable_patterns)]
    fn to_v2(self, cx: &mut Cx) -> R<v2::RequestPermissionOutcome> {
        Ok(match self {
            v1::RequestPermissionOutcome::Cancelled => {
                v2::RequestPermissionOutcome::Cancelled(v2::CancelledPermissionOutcome::default())
            }
            v1::RequestPermissionOutcome::Selected(s) => v2::RequestPermissionOutcome::Selected(s.to_v2(cx)?),
            _ => return Err(cx.unconvertible("this permission outcome has no v2 form")),
        })
    }
}

impl ToV1 for v2::RequestPermissionOutcome {
    type V1 = v1::RequestPermissionOutcome;
    fn to_v1(self, cx: &mut Cx) -> R<v1::RequestPermissionOutcome> {
        Ok(match self {
            v2::RequestPermissionOutcome::Cancelled(c) => {
                if !c.meta.is_absent() {
                    cx.loss_at("_meta", LossKind::Dropped, "v1 `cancelled` carries no `_meta`")?;
                }
                for (k, _) in c.additional_properties.iter() {
                    cx.enter_owned(k.clone());
                    cx.dropped("v1 `cancelled` carries no other properties")?;
                    cx.leave();
                }
                v1::RequestPermissionOutcome::Cancelled
            }
            v2::RequestPermissionOutcome::Selected(s) => v1::RequestPermissionOutcome::Selected(s.to_v1(cx)?),
            v2::RequestPermissionOutcome::Other(u) => {
                super::redecode(cx, serde_json::Value::Object(u.into_object()), "the unknown outcome")?
            }
            _ => return Err(cx.unconvertible("a value these conversions were not built for")),
        })
    }
}

// ---- AvailableCommand: a v2 tagged union (`type: command`) -----------------------------

impl ToV2 for v1::AvailableCommand {
    type V2 = v2::AvailableCommand;
    fn to_v2(self, cx: &mut Cx) -> R<v2::AvailableCommand> {
        self.check_unstable(cx)?;
        let mut c = v2::Command::new(self.name, self.description);
        c.input = cx.at("input", |cx| self.input.to_v2(cx))?;
        c.meta = self.meta;
        c.additional_properties = cx.extras_for(&c, self.additional_properties)?;
        Ok(v2::AvailableCommand::Command(c))
    }
}

impl ToV1 for v2::AvailableCommand {
    type V1 = v1::AvailableCommand;
    fn to_v1(self, cx: &mut Cx) -> R<v1::AvailableCommand> {
        match self {
            v2::AvailableCommand::Command(c) => {
                let mut out = v1::AvailableCommand::new(c.name, c.description);
                out.input = cx.at("input", |cx| c.input.to_v1(cx))?;
                out.meta = c.meta;
                out.additional_properties = cx.extras_for(&out, c.additional_properties)?;
                Ok(out)
            }
            v2::AvailableCommand::Other(u) => Err(cx.unconvertible(format!(
                "the command type `{}` has no v1 form",
                u.get("type").and_then(|t| t.as_str()).unwrap_or("")
            ))),
            _ => Err(cx.unconvertible("a value these conversions were not built for")),
        }
    }
}

impl ToV2 for v1::AvailableCommandInput {
    type V2 = v2::AvailableCommandInput;
    #[allow(unreachable_patterns)]
    fn to_v2(self, cx: &mut Cx) -> R<v2::AvailableCommandInput> {
        match self {
            v1::AvailableCommandInput::Unstructured(i) => Ok(v2::AvailableCommandInput::Text(i.to_v2(cx)?)),
            _ => Err(cx.unconvertible("this command input has no v2 form")),
        }
    }
}

impl ToV1 for v2::AvailableCommandInput {
    type V1 = v1::AvailableCommandInput;
    fn to_v1(self, cx: &mut Cx) -> R<v1::AvailableCommandInput> {
        match self {
            v2::AvailableCommandInput::Text(i) => {
                let mut i = i.to_v1(cx)?;
                // v2's tag has no v1 form (v1 input has no `type`).
                i.additional_properties.remove("type");
                Ok(v1::AvailableCommandInput::Unstructured(i))
            }
            v2::AvailableCommandInput::Other(u) => Err(cx.unconvertible(format!(
                "the command input type `{}` has no v1 form",
                u.get("type").and_then(|t| t.as_str()).unwrap_or("")
            ))),
            _ => Err(cx.unconvertible("a value these conversions were not built for")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_patch_gives_back_both_texts() {
        for (old, new) in [
            (Some("a\nb\n"), "a\nc\n"),
            (Some("x"), "y"),
            (None, "fresh\nfile"),
            (Some(""), "z\n"),
            (Some("only old\n"), ""),
        ] {
            let p = git_patch("/p", old, new);
            let (o, n) = texts_from_patch(&p).unwrap();
            assert_eq!((o.as_str(), n.as_str()), (old.unwrap_or(""), new), "{p}");
        }
    }

    #[test]
    fn a_patch_with_context_gives_its_hunks() {
        let p = "diff --git /p /p\n--- /p\n+++ /p\n@@ -3,2 +3,2 @@\n keep\n-old\n+new\n";
        let (o, n) = texts_from_patch(p).unwrap();
        assert_eq!((o.as_str(), n.as_str()), ("keep\nold\n", "keep\nnew\n"));
        assert_ne!(git_patch("/p", Some(&o), &n), p, "not the whole file: approximated");
    }
}
