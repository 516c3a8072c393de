//! The sans-IO peers of an `rpc` module (`AgentPeer`, `ClientPeer`): the
//! runtime's `Peer` and `Event`, written once, named for each side through
//! a role (`AgentRole`: the payloads the agent handles, answers and sends).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::enum_name;
use crate::model::{MethodKind, Side};

/// The sides that get a peer: the two ends of an ACP connection. (A proxy
/// stands between them and speaks both; it is left to two peers.)
pub use crate::plan::PEER_SIDES as SIDES;

fn other(side: Side) -> Side {
    match side {
        Side::Agent => Side::Client,
        _ => Side::Agent,
    }
}

/// The role of `side`, and the peer and event named for it. `any_side` says
/// whether the module has `$/` notifications (`NotificationToAnySide`).
pub fn peer(side: Side, any_side: bool, rt: &TokenStream) -> TokenStream {
    let o = other(side);
    let [peer, event, role] = crate::plan::item_names::peer_names(side).map(|n| format_ident!("{n}"));
    let name = |s: Side, k: MethodKind| -> Ident { format_ident!("{}", enum_name(s, k)) };
    let (handled, handled_notes, answers) =
        (name(side, MethodKind::Request), name(side, MethodKind::Notification), name(side, MethodKind::Response));
    let (sent, sent_notes, answered) =
        (name(o, MethodKind::Request), name(o, MethodKind::Notification), name(o, MethodKind::Response));
    let any = if any_side { quote!(NotificationToAnySide) } else { quote!(#rt::rpc::NoNotification) };
    let (me, them) = (side.as_str(), o.as_str());
    let rt_path = rt_path(rt);
    let role_doc = crate::emit::docs(&Some(format!(
        "The {me}'s end of a connection of this version, as the runtime's peer takes it: the payloads\n\
         it handles, answers and sends. Never a value; [`{peer}`] is the peer."
    )));
    let peer_doc = crate::emit::docs(&Some(format!(
        "The {me}'s end of a connection, without IO: the runtime's [`Peer`]({rt_path}::rpc::Peer) for\n\
         [`{role}`]. It sends [`{sent}`] and answers [`{handled}`] with [`{answers}`]."
    )));
    let event_doc = crate::emit::docs(&Some(format!(
        "What one line from the {them} means to the {me} ([`Peer::receive`]({rt_path}::rpc::Peer::receive))."
    )));
    quote! {
        #role_doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum #role {}

        impl #rt::rpc::Role for #role {
            type Version = Protocol;
            type Handled = #handled;
            type HandledNotifications = #handled_notes;
            type AnySide = #any;
            type Answers = #answers;
            type Sent = #sent;
            type SentNotifications = #sent_notes;
            type Answered = #answered;
        }

        #peer_doc
        pub type #peer = #rt::rpc::Peer<#role>;

        #event_doc
        pub type #event = #rt::rpc::Event<#role>;
    }
}

/// The runtime's path as an intra-doc link takes it (`crate::runtime`, `acp_bindings::runtime`).
fn rt_path(rt: &TokenStream) -> String {
    rt.to_string().replace(' ', "").trim_start_matches("::").to_owned()
}

/// What a module without `$/` notifications adds for its peers: the
/// runtime's `NoNotification` converts into `Notification` (it has no value).
pub fn no_any_side(rt: &TokenStream) -> TokenStream {
    quote! {
        impl ::core::convert::From<#rt::rpc::NoNotification> for Notification {
            fn from(n: #rt::rpc::NoNotification) -> Self {
                match n {}
            }
        }
    }
}
