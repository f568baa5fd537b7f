//! Shared by the targets: the fuzz input written to a file the loaders read, as users hand them
//! files. One file per process, rewritten for every input.

use std::path::{Path, PathBuf};

/// Writes `data` to this process's scratch file named `name` and returns its path.
#[allow(dead_code)]
pub fn scratch(name: &str, data: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quantir-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, data).expect("the scratch file");
    path
}

/// The first byte picks one of `n` choices; the rest is the input.
#[allow(dead_code)]
pub fn pick(data: &[u8], n: usize) -> (usize, &[u8]) {
    match data.split_first() {
        Some((first, rest)) => (*first as usize % n, rest),
        None => (0, data),
    }
}

/// Writes `data` (less its first byte) under one of `names` and calls `load` with it and one of
/// `formats`, the first byte choosing both.
#[allow(dead_code)]
pub fn each_format<F: Copy>(data: &[u8], names: &[&str], formats: &[F], load: impl Fn(&Path, F)) {
    let (choice, data) = pick(data, names.len() * formats.len());
    let path = scratch(names[choice % names.len()], data);
    load(&path, formats[choice / names.len()]);
}
