//! `Serialize` and `Deserialize` for [`Board`] and [`Game`] (the `serde` feature), as the bytes
//! of their binary formats: a board as the [binary board format](crate::binary), a game as the
//! [saved-game format](crate::saved), neither with a seed.
//!
//! Both formats carry their magic, their version and a CRC-32, so serialized data says what
//! it is and which layout it uses, and deserializing runs the full checked reader: whatever
//! deserializes is a board or a game the engine could hold, and a changed byte is an error,
//! never a different board or game. Self-describing formats such as JSON write bytes as an
//! array of numbers; deserializing accepts that as well as native bytes.
//!
//! ```
//! use bitmines_core::{Board, Game};
//!
//! let mut game = Game::new("*..\n...\n".parse::<Board>()?);
//! game.reveal(1, 2)?;
//! let json = serde_json::to_string(&game)?; // any serde format; JSON here
//! assert!(json.starts_with("[137,66,77,71,")); // the saved-game magic, a number a byte
//! let back: Game = serde_json::from_str(&json)?;
//! assert_eq!(back.to_string(), game.to_string());
//!
//! let tampered = json.replacen("[137,", "[138,", 1);
//! assert!(serde_json::from_str::<Game>(&tampered).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Both types go through one visitor that takes bytes or a sequence of `u8` and runs the
//! checked reader. `Zone`'s serde lives in `place.rs`, next to its private fields.

use std::fmt;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Board, Error, Game};

/// A board serializes as the bytes of the [binary board format](crate::binary), with no
/// seed recorded.
impl Serialize for Board {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.to_binary(None))
    }
}

/// A board deserializes from bytes (or a sequence of `u8`) in the
/// [binary board format](crate::binary), every field checked by [`Board::from_binary`]; its
/// errors become the format's custom errors, with the same message.
impl<'de> Deserialize<'de> for Board {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Board, D::Error> {
        deserializer.deserialize_bytes(Checked {
            read: |bytes| Board::from_binary(bytes).map(|(board, _)| board),
            expecting: "the bytes of a binary bitmines board",
        })
    }
}

/// A game serializes as the bytes of the [saved-game format](crate::saved), with no seed
/// recorded. A deferred game has no board yet, and fails with a custom error carrying
/// [`Error::Deferred`]'s message.
impl Serialize for Game {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.to_saved_with(None) {
            Ok(bytes) => serializer.serialize_bytes(&bytes),
            Err(error) => Err(S::Error::custom(error)),
        }
    }
}

/// A game deserializes from bytes (or a sequence of `u8`) in the
/// [saved-game format](crate::saved), every field and every rule checked by
/// [`Game::from_saved`]; its errors become the format's custom errors, with the same message.
impl<'de> Deserialize<'de> for Game {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Game, D::Error> {
        deserializer.deserialize_bytes(Checked {
            read: |bytes| Game::from_saved(bytes).map(|(game, _)| game),
            expecting: "the bytes of a bitmines saved game",
        })
    }
}

/// A visitor that gathers bytes, however the format hands them over, and runs a checked
/// reader on them.
struct Checked<T> {
    read: fn(&[u8]) -> Result<T, Error>,
    expecting: &'static str,
}

/// The most bytes a sequence's length hint may reserve ahead of its elements, so a hint is
/// never trusted with memory the input has not shown.
const MAX_HINT: usize = 1 << 16;

impl<'de, T> Visitor<'de> for Checked<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        (self.read)(bytes).map_err(E::custom)
    }

    fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<T, E> {
        self.visit_bytes(&bytes)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_HINT));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        self.visit_bytes(&bytes)
    }
}
