//! The methods that cross one to one: one table, read by both adapters.
//!
//! Each line pairs a v1 method with its v2 counterpart. Its params, its
//! result and (for a notification) its params convert by their own
//! [`ToV2`]/[`ToV1`] conversions, in both directions; the table writes the
//! six functions that do it, so [`V1ToV2`](super::V1ToV2) and
//! [`V2ToV1`](super::V2ToV1) cannot disagree on which method becomes which.
//! A method that is not in the table has no counterpart of its own and is
//! `unconvertible` unless an adapter handles it itself first; each adapter
//! matches these before it falls back on the table (the parent module's docs
//! give the reasons):
//!
//! | v1 | v2 | handled by |
//! |---|---|---|
//! | `session/prompt` request | `session/prompt` request | `V1ToV2` (acknowledgement, echo, `running`) |
//! | `session/prompt` response | `state_update` `idle` | both (the turn's end) |
//! | `session/load` | `session/resume` with `replayFrom: start` | both |
//! | `session/set_mode` | `session/set_config_option` of the mode option | `V1ToV2` |
//! | `session/request_permission` request | the same | `V1ToV2` (the tool call's title) |
//! | `session/new`, `session/resume`, `session/set_config_option` responses | the same | `V1ToV2` (modes as an option) |
//! | `session/new`, `session/resume` responses | the same | `V2ToV1` (available commands as an update) |
//! | `initialize` request | the same | `V2ToV1` (capabilities a v2 client has without saying) |
//! | `session/update` | `session/update` | both (the reducer, chunks, plans, modes) |
//!
//! Extension methods (`_`-prefixed) pass through unchanged.

use super::{conv1, conv_at, unconvertible_method, AdaptError, Loss};
use acp_bindings::{v1, v2};

/// Writes, from the table below, the six conversions of messages whose
/// method crosses one to one. `A` is a side's variant in both versions'
/// message enums; `(R, S)` or `(N)` its inner enums.
macro_rules! one_to_one {
    (
        requests { $( $rs:ident ($req:ident, $resp:ident) { $( $r1:ident <=> $r2:ident ),* $(,)? } )* }
        notifications { $( $ns:ident ($not:ident) { $( $n1:ident <=> $n2:ident ),* $(,)? } )* }
    ) => {
        /// A v1 request whose method has a v2 counterpart in the table, as that
        /// request (its params converted at `/params`).
        #[allow(unreachable_patterns)]
        pub(super) fn request_to_v2(strict: bool, r: v1::rpc::Request) -> Result<(v2::rpc::Request, Vec<Loss>), AdaptError> {
            use v1::rpc::Request as A;
            use v2::rpc::Request as B;
            match r {
                $( $( A::$rs(v1::rpc::$req::$r1(p)) => conv_at(strict, "/params", p, |p| B::$rs(v2::rpc::$req::$r2(p))), )* )*
                A::Extension(e) => Ok((B::Extension(e), Vec::new())),
                other => Err(unconvertible_method(other.method(), "v2")),
            }
        }

        /// A v2 request whose method has a v1 counterpart in the table, as that
        /// request (its params converted at `/params`).
        #[allow(unreachable_patterns)]
        pub(super) fn request_to_v1(strict: bool, r: v2::rpc::Request) -> Result<(v1::rpc::Request, Vec<Loss>), AdaptError> {
            use v1::rpc::Request as A;
            use v2::rpc::Request as B;
            match r {
                $( $( B::$rs(v2::rpc::$req::$r2(p)) => conv1(strict, "/params", p, |p| A::$rs(v1::rpc::$req::$r1(p))), )* )*
                B::Extension(e) => Ok((A::Extension(e), Vec::new())),
                other => Err(unconvertible_method(other.method(), "v1")),
            }
        }

        /// The response to such a v1 request, as the v2 response (its result
        /// converted at `/result`).
        #[allow(unreachable_patterns)]
        pub(super) fn response_to_v2(strict: bool, r: v1::rpc::Response) -> Result<(v2::rpc::Response, Vec<Loss>), AdaptError> {
            use v1::rpc::Response as A;
            use v2::rpc::Response as B;
            match r {
                $( $( A::$rs(v1::rpc::$resp::$r1(p)) => conv_at(strict, "/result", p, |p| B::$rs(v2::rpc::$resp::$r2(p))), )* )*
                A::Extension(e) => Ok((B::Extension(e), Vec::new())),
                other => Err(unconvertible_method(other.method(), "v2")),
            }
        }

        /// The response to such a v2 request, as the v1 response (its result
        /// converted at `/result`).
        #[allow(unreachable_patterns)]
        pub(super) fn response_to_v1(strict: bool, r: v2::rpc::Response) -> Result<(v1::rpc::Response, Vec<Loss>), AdaptError> {
            use v1::rpc::Response as A;
            use v2::rpc::Response as B;
            match r {
                $( $( B::$rs(v2::rpc::$resp::$r2(p)) => conv1(strict, "/result", p, |p| A::$rs(v1::rpc::$resp::$r1(p))), )* )*
                B::Extension(e) => Ok((A::Extension(e), Vec::new())),
                other => Err(unconvertible_method(other.method(), "v1")),
            }
        }

        /// A v1 notification whose method has a v2 counterpart in the table,
        /// as that notification (its params converted at `/params`).
        #[allow(unreachable_patterns)]
        pub(super) fn notification_to_v2(
            strict: bool,
            n: v1::rpc::Notification,
        ) -> Result<(v2::rpc::Notification, Vec<Loss>), AdaptError> {
            use v1::rpc::Notification as A;
            use v2::rpc::Notification as B;
            match n {
                $( $( A::$ns(v1::rpc::$not::$n1(p)) => conv_at(strict, "/params", p, |p| B::$ns(v2::rpc::$not::$n2(p))), )* )*
                A::Extension(e) => Ok((B::Extension(e), Vec::new())),
                other => Err(unconvertible_method(other.method(), "v2")),
            }
        }

        /// A v2 notification whose method has a v1 counterpart in the table,
        /// as that notification (its params converted at `/params`).
        #[allow(unreachable_patterns)]
        pub(super) fn notification_to_v1(
            strict: bool,
            n: v2::rpc::Notification,
        ) -> Result<(v1::rpc::Notification, Vec<Loss>), AdaptError> {
            use v1::rpc::Notification as A;
            use v2::rpc::Notification as B;
            match n {
                $( $( B::$ns(v2::rpc::$not::$n2(p)) => conv1(strict, "/params", p, |p| A::$ns(v1::rpc::$not::$n1(p))), )* )*
                B::Extension(e) => Ok((A::Extension(e), Vec::new())),
                other => Err(unconvertible_method(other.method(), "v1")),
            }
        }
    };
}

// The table: `v1 variant <=> v2 variant` of the typed dispatch enums, by side.
one_to_one! {
    requests {
        Agent(RequestToAgent, ResponseFromAgent) {
            Initialize <=> Initialize,
            Authenticate <=> AuthLogin,
            Logout <=> AuthLogout,
            SessionNew <=> SessionNew,
            SessionList <=> SessionList,
            SessionDelete <=> SessionDelete,
            SessionResume <=> SessionResume,
            SessionClose <=> SessionClose,
            SessionSetConfigOption <=> SessionSetConfigOption,
            SessionPrompt <=> SessionPrompt,
        }
        Client(RequestToClient, ResponseFromClient) {
            SessionRequestPermission <=> SessionRequestPermission,
            ElicitationCreate <=> ElicitationCreate,
        }
    }
    notifications {
        Agent(NotificationToAgent) {
            SessionCancel <=> SessionCancel,
        }
        Client(NotificationToClient) {
            ElicitationComplete <=> ElicitationComplete,
        }
        Protocol(NotificationToAnySide) {
            CancelRequest <=> CancelRequest,
        }
    }
}
