//! The `protocol` property: the server's frame decoders take any bytes without panicking; a
//! client frame that decodes encodes back to the very same bytes (the format has one
//! spelling of each message), and a server frame that decodes encodes to a frame that
//! decodes to the same message.
//!
//! Shared by the `protocol` fuzz target and `tests/fuzz_regressions.rs`.

use bitmines_server::protocol::{ClientMsg, ServerMsg};

/// Checks both decoders on `data`.
pub(crate) fn check(data: &[u8]) {
    if let Ok(msg) = ClientMsg::decode(data) {
        assert_eq!(
            msg.encode().as_ref(),
            data,
            "{msg:?} re-encodes differently"
        );
    }
    if let Ok(msg) = ServerMsg::decode(data) {
        let again = ServerMsg::decode(&msg.encode());
        assert_eq!(
            again.as_ref(),
            Ok(&msg),
            "{msg:?} does not survive a round trip"
        );
    }
}
