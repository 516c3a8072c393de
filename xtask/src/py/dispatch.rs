//! The Python target's dispatch classes and state classes: what a decoded
//! message is by method and direction (`Codec.dispatch`), and the state an
//! upsert's patches build (`Codec.apply_patch`).

use std::collections::BTreeMap;

use genco::prelude::*;

use super::{docstring, field_name, string, Renderer};
use crate::model::*;
use crate::plan::Payloads;

impl Renderer<'_> {
    /// The typed dispatch of a build (`unstable` or not): for each side and
    /// kind of message the plan groups the payloads by (the crate's dispatch
    /// enums, the TypeScript package's unions), a class per method holding
    /// the message's id (but for a notification) and payload in the
    /// generated types, named after the enum and the crate's variant
    /// (`RequestToAgentSessionPrompt`: `RequestToAgent::SessionPrompt`), and
    /// the union of them under the enum's name (`RequestToAgent`); then
    /// `DISPATCH`, the classes by kind and method, which `Codec.dispatch`
    /// reads. Empty for a file without methods.
    pub(super) fn dispatch(&self, walked: &[&Def], payloads: &Payloads, unstable: bool) -> python::Tokens {
        let mut out = python::Tokens::new();
        let by_name: BTreeMap<&str, &Def> = walked.iter().map(|d| (d.name.as_str(), *d)).collect();
        let id = if by_name.contains_key("RequestId") { self.name("RequestId") } else { "Any".to_owned() };
        let mut table: Vec<(String, String, String)> = Vec::new();
        for ((side, kind), group) in payloads.groups() {
            let mut members: Vec<(&str, String)> = group
                .iter()
                .filter(|(_, gate)| gate.in_build(unstable))
                .filter_map(|(def, _)| by_name.get(def.as_str()))
                .filter_map(|d| Some((d.method.as_ref()?.name.as_str(), self.name(&d.name))))
                .collect();
            members.sort();
            members.dedup();
            if members.is_empty() {
                continue;
            }
            let union = crate::plan::item_names::enum_name(*side, *kind);
            let who = match side {
                Side::Protocol => "either side".to_owned(),
                s => format!("the {}", s.as_str()),
            };
            let (kind_name, member, what) = match kind {
                MethodKind::Request => ("request", "params", format!("a request {who} handles")),
                MethodKind::Notification => ("notification", "params", format!("a notification {who} handles")),
                MethodKind::Response => ("response", "result", format!("the response {who} sends")),
            };
            let mut classes = Vec::new();
            for (method, payload) in &members {
                let class = format!("{union}{}", crate::model::method_variant(method));
                let docs = format!("`{method}`, {what}: its {member} as `{payload}`.");
                let method_field = format!("method: Literal[{m}] = {m}", m = string(method));
                let id_field = (*kind != MethodKind::Notification).then(|| format!("id: {id}"));
                let payload_field = format!("{member}: {payload}");
                quote_in! { out =>
                    class $(&class)(Struct, kw_only=True, frozen=True):
                        $(docstring(&docs, 4))
                        $['\n']
                        $(&method_field)
                        $(if let Some(f) = &id_field => $['\r']$f)
                        $['\r']$(&payload_field)
                }
                out.line();
                out.line();
                table.push((kind_name.to_owned(), (*method).to_owned(), class.clone()));
                classes.push(class);
            }
            let doc = match kind {
                MethodKind::Request => format!("The requests {who} handles, by method (`Codec.dispatch`)."),
                MethodKind::Notification => format!("The notifications {who} handles, by method (`Codec.dispatch`)."),
                MethodKind::Response => {
                    format!("The responses {who} sends, by the method of the request (`Codec.dispatch`).")
                }
            };
            let value = format!("Union[{}]", classes.join(", "));
            quote_in! { out =>
                $(&union): TypeAlias = $(&value)
                $(docstring(&doc, 0))
            }
            out.line();
            out.line();
        }
        if !table.is_empty() {
            table.sort();
            let entries: Vec<String> =
                table.iter().map(|(k, m, c)| format!("({}, {}): {c},", string(k), string(m))).collect();
            quote_in! { out =>
                DISPATCH: dict[tuple[str, str], type[Struct]] = {
                    $(for e in &entries => $['\r']$e)
                }
                $(docstring("The dispatch classes by kind (`request`, `notification`, `response`) and method.", 0))
            }
            out.line();
            out.line();
        }
        out
    }

    /// The state an upsert's patches build (what `Codec.apply_patch` gives and
    /// the session reducer holds), every property present: the key and the
    /// properties on the wire every time as they are, an optional one or
    /// `_meta` `| None` (unset), a list or a property that resets as its
    /// value. The patch's property docs say how a patch changes a property,
    /// so the state's fields go without them.
    pub(super) fn state_class(&self, out: &mut python::Tokens, def: &Def, name: &str, s: &Struct) {
        use crate::plan::StateRepr;
        let docs = format!(
            "The state `{}` patches build, as the session reducer holds it: every property present.\n\n\
             `Codec.apply_patch` applies a patch to it; `Codec.from_patch` makes it from a first patch.",
            self.name(&def.name)
        );
        let fields: Vec<String> = s
            .fields
            .iter()
            .map(|f| {
                let t = self.ty(&f.ty);
                let t = match self.decisions.fields.get(f).state_repr() {
                    StateRepr::Key | StateRepr::Required | StateRepr::List | StateRepr::Reset(_) => t,
                    StateRepr::AnyValue => "Any".to_owned(),
                    StateRepr::Optional | StateRepr::ByKey => format!("{t} | None"),
                };
                let py = field_name(f);
                let renamed = if py != f.name { format!(" = field(name={})", string(&f.name)) } else { String::new() };
                format!("{py}: {t}{renamed}")
            })
            .collect();
        quote_in! { *out =>
            class $name(Struct, kw_only=True):
                $(docstring(&docs, 4))
                $['\n']
                $(for f in &fields => $f$['\r'])
        }
        out.line();
        out.line();
    }
}
