//! Byte helpers shared by the checks of the binary formats (`binary`, `saved`, `serde`):
//! the CRC-32 fix-up that lets random inputs reach the checks made after the checksum, and a
//! reader that hands bytes over in small, interrupted pieces.
//!
//! A crate that includes any of those checks includes this file as `bytes`.

use std::io::{self, ErrorKind, Read};

/// Bytes of the CRC-32 at the end of a binary board or saved game.
pub(crate) const CRC_LEN: usize = 4;

/// The input's bytes after its first one; when that byte is odd, the last four are first
/// replaced with the CRC-32 of the bytes before them.
pub(crate) fn with_crc(data: &[u8]) -> Vec<u8> {
    let Some((&mode, rest)) = data.split_first() else {
        return Vec::new();
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 && bytes.len() >= CRC_LEN {
        let end = bytes.len() - CRC_LEN;
        let crc = crc32(&bytes[..end]);
        bytes[end..].copy_from_slice(&crc.to_le_bytes());
    }
    bytes
}

/// A reader that hands over at most `piece` bytes a call and is interrupted before every
/// other piece, as a pipe or a slow device may be.
pub(crate) struct Trickle<'a> {
    bytes: &'a [u8],
    piece: usize,
    interrupt: bool,
}

impl<'a> Trickle<'a> {
    pub(crate) fn new(bytes: &'a [u8], piece: usize) -> Trickle<'a> {
        Trickle {
            bytes,
            piece,
            interrupt: false,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.piece).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// CRC-32 (IEEE, reflected, as zlib computes it), one bit at a time, from the definition.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                crc >> 1 ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
