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

/// The files of `verify/` besides `mod.rs` that are its vocabulary, as `src/verify/mod.rs` says.
const VOCABULARY: [&str; 2] = ["data", "scores"];

/// The parts of `verify/` as `src/verify/mod.rs` states them, in order.
fn verify_parts() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("src/verify/mod.rs")).unwrap();
    let start = text.find("The parts are stacked").expect("verify/mod.rs states its parts' order");
    let sentence = &text[start..start + text[start..].find("(`tests/integration/layering.rs`").expect("the statement names this test")];
    let order = sentence.split_once("this order").unwrap().1;
    order.split("[`").skip(1).map(|n| n[..n.find('`').unwrap()].to_string()).collect()
}

/// The parts of `verify/` that `code` (one file's, comments dropped) names, with `prefixes`
/// being the ways that file reaches `verify` itself (`crate::verify::`, and `super::` or
/// `super::super::` by where it lies).
fn parts_named(code: &str, prefixes: &[&str], parts: &[String]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in code.lines().map(str::trim_start).filter(|l| !l.starts_with("//")) {
        for prefix in prefixes {
            let mut rest = line;
            while let Some(at) = rest.find(prefix) {
                // `super::super::x` must not count as `super::` + `super`.
                let before = &rest[..at];
                rest = &rest[at + prefix.len()..];
                if before.ends_with("super::") {
                    continue;
                }
                let name: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                if parts.contains(&name) {
                    found.insert(name);
                }
            }
        }
    }
    found
}

/// Whether `line` of `verify/mod.rs` names its own part `part` (`part::`, `self::part::` or
/// `crate::verify::part::`) rather than another module's (`crate::llm::`).
fn names_own_part(line: &str, part: &str) -> bool {
    let needle = format!("{part}::");
    line.match_indices(&needle).any(|(at, _)| {
        let before = &line[..at];
        let qualified = before.ends_with("::");
        !before.ends_with(|c: char| c.is_alphanumeric() || c == '_') && (!qualified || before.ends_with("crate::verify::") || before.ends_with("self::"))
    })
}

/// No file inside `verify/` reaches up to a part stated after its own: the vocabulary (`mod.rs`,
/// `data.rs`, `scores.rs`) uses no part, and each part only those before it.
#[test]
fn verify_parts_use_only_the_parts_before_them() {
    let parts = verify_parts();
    assert!(parts.len() >= 5 && parts.contains(&"model".to_string()) && parts.contains(&"pipeline".to_string()), "{parts:?}");
    let root = repo().join("src/verify");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let mut wrong = Vec::new();
    let mut seen_parts = BTreeSet::new();
    for path in paths {
        let relative = path.strip_prefix(&root).unwrap();
        let components: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string()).collect();
        let (own, prefixes): (Option<usize>, Vec<&str>) = match components.as_slice() {
            [file] if file == "mod" => (None, vec!["crate::verify::"]),
            [file] if VOCABULARY.contains(&file.as_str()) => (None, vec!["crate::verify::", "super::"]),
            [file] => {
                let Some(own) = parts.iter().position(|p| p == file) else {
                    wrong.push(format!("src/verify/{} is neither a stated part nor the vocabulary", relative.display()));
                    continue;
                };
                (Some(own), vec!["crate::verify::", "super::"])
            }
            [dir, _] => (parts.iter().position(|p| p == dir), vec!["crate::verify::", "super::super::"]),
            _ => panic!("verify/ nests one folder deep at most: {}", relative.display()),
        };
        if let Some(own) = own {
            seen_parts.insert(parts[own].clone());
        }
        let code = std::fs::read_to_string(&path).unwrap();
        let mut named = parts_named(&code, &prefixes, &parts);
        if components == ["mod"] {
            // mod.rs declares the parts; any other mention is a use.
            let uses: String = code.lines().filter(|l| !l.trim_start().starts_with("pub mod ") && !l.trim_start().starts_with("mod ")).map(|l| format!("{l}\n")).collect();
            named = parts.iter().filter(|p| uses.lines().filter(|l| !l.trim_start().starts_with("//")).any(|l| names_own_part(l, p))).cloned().collect();
        }
        for name in named {
            let position = parts.iter().position(|p| *p == name).unwrap();
            if own.is_none_or(|own| position > own) {
                let own = own.map_or("the vocabulary".to_string(), |o| format!("part {} ({})", o, parts[o]));
                wrong.push(format!("src/verify/{} ({own}) uses {name} (part {position})", relative.display()));
            }
        }
    }
    let declared: BTreeSet<String> = parts.iter().cloned().collect();
    assert_eq!(seen_parts, declared, "every stated part is a file or folder of verify/, and every part is stated");
    assert!(wrong.is_empty(), "imports against src/verify/mod.rs's order:\n{}", wrong.join("\n"));
}
