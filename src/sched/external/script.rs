//! The script an external policy's command runs, for the record: the file
//! its second word names (`python3 policy.py`), else its first
//! (`./policy`), if it is a readable file, with the SHA-256 of its bytes.
//! A result then says which policy produced it, and a sweep can tell when
//! its policy changed under it.

use sha2::{Digest, Sha256};
use std::path::Path;

/// A policy's script: its path as the command gives it, and the SHA-256 of
/// its bytes (lowercase hex).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    pub path: String,
    pub sha256: String,
}

/// The script of command `argv` (run from the current directory), if its
/// second or first word names a readable file; the second is preferred,
/// as an interpreter comes first (`/usr/bin/python3 policy.py`).
pub fn script_of(argv: &[String]) -> Option<Script> {
    argv.iter()
        .take(2)
        .rev()
        .find_map(|word| Script::read(Path::new(word)))
}

impl Script {
    /// The file at `path`, hashed, if it is a readable file.
    pub fn read(path: &Path) -> Option<Script> {
        if !path.is_file() {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        Some(Script {
            path: path.display().to_string(),
            sha256: sha256_hex(&bytes),
        })
    }
}

/// SHA-256 of `bytes`, in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_is_the_second_word_else_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("policy.py");
        std::fs::write(&f, b"abc").unwrap();
        let f = f.display().to_string();
        // SHA-256("abc"), FIPS 180-2's first example.
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let s = script_of(&["python3".into(), f.clone(), "--x".into()]).unwrap();
        assert_eq!((s.path.as_str(), s.sha256.as_str()), (f.as_str(), abc));
        let s = script_of(&[f.clone(), "--fast".into()]).unwrap();
        assert_eq!(s.sha256, abc);
        assert_eq!(script_of(&["no-such-program".into(), "x".into()]), None);
        // A directory is not a script.
        let d = dir.path().display().to_string();
        assert_eq!(script_of(&["python3".into(), d]), None);
    }
}
