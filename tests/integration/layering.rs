//! The library's layering, as `src/lib.rs` states it, is true: no module uses one that comes after
//! it in the stated order (doc comments aside, which may point anywhere).

use std::collections::BTreeSet;
use std::path::Path;

use crate::util::repo;

/// The order `src/lib.rs` states, and the modules every one may use.
fn stated() -> (Vec<String>, Vec<String>) {
    let lib = std::fs::read_to_string(repo().join("src/lib.rs")).unwrap();
    let start = lib.find("Modules are stacked").expect("lib.rs states the layering");
    let text = &lib[start..];
    let sentence = &text[..text.find("(`tests/integration/layering.rs`").expect("the statement names this test")];
    let (base, order) = sentence.split_once("this order").unwrap();
    let names = |s: &str| s.split("[`").skip(1).map(|n| n[..n.find('`').unwrap()].to_string()).collect::<Vec<_>>();
    (names(order), names(base))
}

/// The top-level modules `file`'s code (not its comments) names as `crate::X`.
fn uses(file: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut found = BTreeSet::new();
    for line in text.lines().map(str::trim_start).filter(|l| !l.starts_with("//")) {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
            found.insert(name);
        }
    }
    found
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_one_stated_after_it() {
    let (order, base) = stated();
    assert!(order.len() >= 10 && base.contains(&"error".to_string()), "{order:?} {base:?}");
    let lib = std::fs::read_to_string(repo().join("src/lib.rs")).unwrap();
    let declared: BTreeSet<String> = lib.lines().filter_map(|l| l.strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';').to_string()).collect();
    let stated_set: BTreeSet<String> = order.iter().chain(&base).cloned().collect();
    assert_eq!(declared, stated_set, "lib.rs's order names every module, once");
    let mut wrong = Vec::new();
    for (position, module) in order.iter().enumerate() {
        let root = repo().join("src");
        let mut paths = Vec::new();
        if root.join(module).is_dir() {
            files(&root.join(module), &mut paths);
        } else {
            paths.push(root.join(format!("{module}.rs")));
        }
        for path in paths {
            for used in uses(&path) {
                if let Some(later) = order.iter().position(|m| *m == used).filter(|&p| p > position) {
                    wrong.push(format!("{} uses {used}, stated after {module} (position {later} > {position})", path.strip_prefix(repo()).unwrap().display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports against src/lib.rs's layering:\n{}", wrong.join("\n"));
}
