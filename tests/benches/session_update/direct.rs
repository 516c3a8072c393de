//! A hand-written decoder of the bench stream that does not use serde: it
//! parses the bytes straight into the reference types
//! ([`super::reference::owned`]), as a generated non-serde decoder would.
//!
//! It exists to measure what such a decoder could reach against the parse
//! floor, not to be used: it knows only the stream's fields, refuses unknown
//! discriminators, and decodes the any-JSON fields (`rawInput`, `rawOutput`,
//! `_meta`) by handing their text to serde_json (a second read of those
//! values, which a real one would not need). It checks the JSON it reads:
//! structure, literals, escapes (surrogate pairs included), control
//! characters, and numbers (parsed); unknown members are skipped with the
//! same checks.

use serde_json::{Map, Value};

use super::reference::owned::*;

type R<T> = Result<T, String>;

/// The position of the first `"`, `\\` or control character at or after
/// `i` (or the end): eight bytes at a time, as serde_json's scan does.
#[inline]
fn special(b: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let quote = w ^ (LO * u64::from(b'"'));
        let slash = w ^ (LO * u64::from(b'\\'));
        // A byte is flagged when it is zero (after the xor) or below 0x20;
        // the lowest flagged byte is always a real one.
        let found =
            ((quote.wrapping_sub(LO) & !quote) | (slash.wrapping_sub(LO) & !slash) | (w.wrapping_sub(LO * 0x20) & !w))
                & HI;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b.get(i).is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20) {
        i += 1;
    }
    i
}

struct P<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> P<'a> {
    #[inline]
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.i += 1;
        }
    }

    #[inline]
    fn peek(&mut self) -> R<u8> {
        self.ws();
        self.b.get(self.i).copied().ok_or_else(|| "unexpected end".to_owned())
    }

    #[inline]
    fn eat(&mut self, c: u8) -> R<()> {
        if self.peek()? == c {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at {}", c as char, self.i))
        }
    }

    /// A string's text: borrowed when it has no escape.
    #[inline]
    fn str(&mut self) -> R<std::borrow::Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.i;
        self.i = special(self.b, self.i);
        match self.b.get(self.i) {
            None => return Err("unterminated string".into()),
            Some(b'"') => {
                let s = &self.s[start..self.i];
                self.i += 1;
                return Ok(s.into());
            }
            Some(b'\\') => {}
            Some(_) => return Err("control character in string".into()),
        }
        let mut out = self.s[start..self.i].to_owned();
        loop {
            match self.b.get(self.i) {
                None => return Err("unterminated string".into()),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out.into());
                }
                Some(b'\\') => {
                    let e = *self.b.get(self.i + 1).ok_or("unterminated escape")?;
                    self.i += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                                    return Err("lone surrogate".into());
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err("lone surrogate".into());
                                }
                                char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                            } else {
                                char::from_u32(hi)
                            };
                            out.push(c.ok_or("lone surrogate")?);
                        }
                        _ => return Err("bad escape".into()),
                    }
                }
                Some(&c) if c < 0x20 => return Err("control character in string".into()),
                Some(_) => {
                    let start = self.i;
                    self.i = special(self.b, self.i);
                    out.push_str(&self.s[start..self.i]);
                }
            }
        }
    }

    fn hex4(&mut self) -> R<u32> {
        let h = self.s.get(self.i..self.i + 4).ok_or("short \\u escape")?;
        self.i += 4;
        u32::from_str_radix(h, 16).map_err(|_| "bad \\u escape".into())
    }

    /// Reads an object: `f` gets each key and reads its value.
    #[inline]
    fn object(&mut self, mut f: impl FnMut(&mut Self, &str) -> R<()>) -> R<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Ok(());
        }
        loop {
            let k = self.str()?;
            self.eat(b':')?;
            f(self, &k)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(format!("expected `,` or `}}` at {}", self.i)),
            }
        }
    }

    /// Reads an array, each item with `f`.
    fn array<T>(&mut self, mut f: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        if self.peek()? == b']' {
            self.i += 1;
            return Ok(out);
        }
        loop {
            out.push(f(self)?);
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Ok(out);
                }
                _ => return Err(format!("expected `,` or `]` at {}", self.i)),
            }
        }
    }

    /// `null` (consumed) or not.
    #[inline]
    fn null(&mut self) -> R<bool> {
        if self.peek()? == b'n' {
            if self.b.get(self.i..self.i + 4) != Some(b"null") {
                return Err("bad literal".into());
            }
            self.i += 4;
            return Ok(true);
        }
        Ok(false)
    }

    /// `None` for `null`, else the value `f` reads.
    fn or_null<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<Option<T>> {
        Ok(if self.null()? { None } else { Some(f(self)?) })
    }

    fn u64(&mut self) -> R<u64> {
        self.ws();
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.s[start..self.i].parse().map_err(|_| format!("bad number at {start}"))
    }

    /// Skips any value, validating it; returns its text.
    fn skip(&mut self) -> R<&'a str> {
        self.ws();
        let start = self.i;
        match self.peek()? {
            b'{' => self.object(|p, _| p.skip().map(drop))?,
            b'[' => drop(self.array(|p| p.skip().map(drop))?),
            b'"' => drop(self.str()?),
            b't' | b'f' | b'n' => {
                let lit: &[u8] = match self.b[self.i] {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if self.b.get(self.i..self.i + lit.len()) != Some(lit) {
                    return Err("bad literal".into());
                }
                self.i += lit.len();
            }
            _ => {
                while self.b.get(self.i).is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                    self.i += 1;
                }
                self.s[start..self.i].parse::<f64>().map_err(|_| format!("bad number at {start}"))?;
            }
        }
        Ok(&self.s[start..self.i])
    }

    fn json(&mut self) -> R<Value> {
        serde_json::from_str(self.skip()?).map_err(|e| e.to_string())
    }

    fn json_object(&mut self) -> R<Map<String, Value>> {
        serde_json::from_str(self.skip()?).map_err(|e| e.to_string())
    }

    fn id(&mut self) -> R<acp_bindings::runtime::SmolStr> {
        let s = self.str()?;
        Ok(if s.len() <= acp_bindings::runtime::SmolStr::INLINE_CAP {
            acp_bindings::runtime::SmolStr::new_inline(&s)
        } else {
            acp_bindings::runtime::SmolStr::new(s)
        })
    }

    fn text(&mut self) -> R<String> {
        Ok(self.str()?.into_owned())
    }

    /// A union whose discriminator `tag` comes first: its value, then `f`
    /// reads the rest of the object.
    fn tagged<T>(&mut self, tag: &str, f: impl FnOnce(&mut Self, &str) -> R<T>) -> R<T> {
        self.eat(b'{')?;
        if self.str()? != tag {
            return Err(format!("`{tag}` must come first"));
        }
        self.eat(b':')?;
        let t = self.str()?;
        f(self, &t)
    }

    /// After a union's discriminator: the remaining members, each with `f`.
    fn rest(&mut self, mut f: impl FnMut(&mut Self, &str) -> R<()>) -> R<()> {
        loop {
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    let k = self.str()?;
                    self.eat(b':')?;
                    f(self, &k)?;
                }
                b'}' => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(format!("expected `,` or `}}` at {}", self.i)),
            }
        }
    }
}

fn missing<T>(v: Option<T>, name: &str) -> R<T> {
    v.ok_or_else(|| format!("missing field `{name}`"))
}

fn once<T>(slot: &mut Option<T>, v: T, name: &str) -> R<()> {
    if slot.is_some() {
        return Err(format!("duplicate field `{name}`"));
    }
    *slot = Some(v);
    Ok(())
}

macro_rules! closed {
    ($p:expr, $($s:literal => $v:expr),* $(,)?) => {{
        let t = $p.str()?;
        match &*t {
            $($s => $v,)*
            other => return Err(format!("unknown variant `{other}`")),
        }
    }};
}

/// Decodes one line of the stream.
pub fn notification(s: &str) -> R<Notification> {
    let mut p = P { s, b: s.as_bytes(), i: 0 };
    let (mut session_id, mut update, mut meta) = (None, None, None);
    p.object(|p, k| match k {
        "sessionId" => once(&mut session_id, p.id()?, k),
        "update" => once(&mut update, self::update(p)?, k),
        "_meta" => once(&mut meta, if p.null()? { None } else { Some(p.json_object()?) }, k),
        _ => p.skip().map(drop),
    })?;
    p.ws();
    if p.i != p.b.len() {
        return Err("trailing characters".into());
    }
    Ok(Notification {
        session_id: missing(session_id, "sessionId")?,
        update: missing(update, "update")?,
        meta: meta.flatten(),
    })
}

fn update(p: &mut P<'_>) -> R<Update> {
    p.tagged("sessionUpdate", |p, t| {
        Ok(match t {
            "tool_call_update" => Update::ToolCallUpdate(tool_call_update(p)?),
            "tool_call_content_chunk" => {
                let (mut id, mut content) = (None, None);
                p.rest(|p, k| match k {
                    "toolCallId" => once(&mut id, p.id()?, k),
                    "content" => once(&mut content, tool_call_content(p)?, k),
                    _ => p.skip().map(drop),
                })?;
                Update::ToolCallContentChunk(ToolCallContentChunk {
                    tool_call_id: missing(id, "toolCallId")?,
                    content: missing(content, "content")?,
                })
            }
            "agent_message_chunk" => Update::AgentMessageChunk(content_chunk(p)?),
            "agent_thought_chunk" => Update::AgentThoughtChunk(content_chunk(p)?),
            "plan_update" => {
                let mut plan = None;
                p.rest(|p, k| match k {
                    "plan" => once(&mut plan, self::plan(p)?, k),
                    _ => p.skip().map(drop),
                })?;
                Update::PlanUpdate(PlanUpdate { plan: missing(plan, "plan")? })
            }
            "usage_update" => {
                let (mut used, mut size) = (None, None);
                p.rest(|p, k| match k {
                    "used" => once(&mut used, p.u64()?, k),
                    "size" => once(&mut size, p.u64()?, k),
                    _ => p.skip().map(drop),
                })?;
                Update::UsageUpdate(UsageUpdate { used: missing(used, "used")?, size: missing(size, "size")? })
            }
            "state_update" => {
                let (mut state, mut stop) = (None, None);
                p.rest(|p, k| match k {
                    "state" => once(
                        &mut state,
                        closed!(p, "idle" => SessionState::Idle, "running" => SessionState::Running),
                        k,
                    ),
                    "stopReason" => {
                        let v = if p.null()? {
                            None
                        } else {
                            Some(closed!(p, "end_turn" => StopReason::EndTurn, "max_tokens" => StopReason::MaxTokens,
                                "max_turn_requests" => StopReason::MaxTurnRequests, "refusal" => StopReason::Refusal,
                                "cancelled" => StopReason::Cancelled))
                        };
                        once(&mut stop, v, k)
                    }
                    _ => p.skip().map(drop),
                })?;
                Update::StateUpdate(StateUpdate { state: missing(state, "state")?, stop_reason: stop.flatten() })
            }
            "session_info_update" => {
                let (mut title, mut updated_at) = (None, None);
                p.rest(|p, k| match k {
                    "title" => once(&mut title, p.or_null(P::text)?, k),
                    "updatedAt" => once(&mut updated_at, p.or_null(P::text)?, k),
                    _ => p.skip().map(drop),
                })?;
                Update::SessionInfoUpdate(SessionInfoUpdate { title, updated_at })
            }
            other => return Err(format!("unknown variant `{other}`")),
        })
    })
}

fn tool_call_update(p: &mut P<'_>) -> R<ToolCallUpdate> {
    let mut id = None;
    let mut u = ToolCallUpdate {
        tool_call_id: Default::default(),
        title: None,
        kind: None,
        status: None,
        content: None,
        locations: None,
        raw_input: None,
        raw_output: None,
        meta: None,
    };
    p.rest(|p, k| match k {
        "toolCallId" => once(&mut id, p.id()?, k),
        "title" => once(&mut u.title, p.or_null(P::text)?, k),
        "kind" => {
            let v = p.or_null(|p| {
                Ok(closed!(p, "read" => ToolKind::Read, "edit" => ToolKind::Edit, "delete" => ToolKind::Delete,
                    "move" => ToolKind::Move, "search" => ToolKind::Search, "execute" => ToolKind::Execute,
                    "think" => ToolKind::Think, "fetch" => ToolKind::Fetch, "other" => ToolKind::Other))
            })?;
            once(&mut u.kind, v, k)
        }
        "status" => {
            let v = p.or_null(|p| {
                Ok(closed!(p, "pending" => ToolCallStatus::Pending, "in_progress" => ToolCallStatus::InProgress,
                    "completed" => ToolCallStatus::Completed, "failed" => ToolCallStatus::Failed))
            })?;
            once(&mut u.status, v, k)
        }
        "content" => once(&mut u.content, p.or_null(|p| p.array(tool_call_content))?, k),
        "locations" => once(&mut u.locations, p.or_null(|p| p.array(location))?, k),
        "rawInput" => once(&mut u.raw_input, p.or_null(P::json)?, k),
        "rawOutput" => once(&mut u.raw_output, p.or_null(P::json)?, k),
        "_meta" => once(&mut u.meta, p.or_null(P::json_object)?, k),
        _ => p.skip().map(drop),
    })?;
    u.tool_call_id = missing(id, "toolCallId")?;
    Ok(u)
}

fn location(p: &mut P<'_>) -> R<ToolCallLocation> {
    let (mut path, mut line) = (None, None);
    p.object(|p, k| match k {
        "path" => once(&mut path, p.text()?, k),
        "line" => once(&mut line, if p.null()? { None } else { Some(p.u64()? as u32) }, k),
        _ => p.skip().map(drop),
    })?;
    Ok(ToolCallLocation { path: missing(path, "path")?, line: line.flatten() })
}

fn tool_call_content(p: &mut P<'_>) -> R<ToolCallContent> {
    p.tagged("type", |p, t| match t {
        "content" => {
            let mut content = None;
            p.rest(|p, k| match k {
                "content" => once(&mut content, content_block(p)?, k),
                _ => p.skip().map(drop),
            })?;
            Ok(ToolCallContent::Content(Content { content: missing(content, "content")? }))
        }
        "diff" => {
            let mut changes = None;
            p.rest(|p, k| match k {
                "changes" => once(&mut changes, p.array(change)?, k),
                _ => p.skip().map(drop),
            })?;
            Ok(ToolCallContent::Diff(Diff { changes: missing(changes, "changes")? }))
        }
        other => Err(format!("unknown variant `{other}`")),
    })
}

fn change(p: &mut P<'_>) -> R<Change> {
    let (mut operation, mut path) = (None, None);
    p.object(|p, k| match k {
        "operation" => once(
            &mut operation,
            closed!(p, "create" => ChangeOperation::Create, "modify" => ChangeOperation::Modify, "delete" => ChangeOperation::Delete),
            k,
        ),
        "path" => once(&mut path, p.text()?, k),
        _ => p.skip().map(drop),
    })?;
    Ok(Change { operation: missing(operation, "operation")?, path: missing(path, "path")? })
}

fn content_chunk(p: &mut P<'_>) -> R<ContentChunk> {
    let (mut message_id, mut content) = (None, None);
    p.rest(|p, k| match k {
        "messageId" => once(&mut message_id, if p.null()? { None } else { Some(p.id()?) }, k),
        "content" => once(&mut content, content_block(p)?, k),
        _ => p.skip().map(drop),
    })?;
    Ok(ContentChunk { message_id: message_id.flatten(), content: missing(content, "content")? })
}

fn content_block(p: &mut P<'_>) -> R<ContentBlock> {
    p.tagged("type", |p, t| match t {
        "text" => {
            let mut text = None;
            p.rest(|p, k| match k {
                "text" => once(&mut text, p.text()?, k),
                _ => p.skip().map(drop),
            })?;
            Ok(ContentBlock::Text(TextContent { text: missing(text, "text")? }))
        }
        other => Err(format!("unknown variant `{other}`")),
    })
}

fn plan(p: &mut P<'_>) -> R<Plan> {
    p.tagged("type", |p, t| match t {
        "items" => {
            let (mut plan_id, mut entries) = (None, None);
            p.rest(|p, k| match k {
                "planId" => once(&mut plan_id, p.id()?, k),
                "entries" => once(&mut entries, p.array(entry)?, k),
                _ => p.skip().map(drop),
            })?;
            Ok(Plan::Items(PlanItems { plan_id: missing(plan_id, "planId")?, entries: missing(entries, "entries")? }))
        }
        other => Err(format!("unknown variant `{other}`")),
    })
}

fn entry(p: &mut P<'_>) -> R<PlanEntry> {
    let (mut content, mut priority, mut status) = (None, None, None);
    p.object(|p, k| match k {
        "content" => once(&mut content, p.text()?, k),
        "priority" => once(
            &mut priority,
            closed!(p, "high" => Priority::High, "medium" => Priority::Medium, "low" => Priority::Low),
            k,
        ),
        "status" => once(
            &mut status,
            closed!(p, "pending" => PlanEntryStatus::Pending, "in_progress" => PlanEntryStatus::InProgress,
                "completed" => PlanEntryStatus::Completed),
            k,
        ),
        _ => p.skip().map(drop),
    })?;
    Ok(PlanEntry {
        content: missing(content, "content")?,
        priority: missing(priority, "priority")?,
        status: missing(status, "status")?,
    })
}
