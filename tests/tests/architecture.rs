//! The code's shape, checked: no import cycle between the modules of any
//! crate (core, CLI, wasm package, page), and the core's one-way flow
//! (vocabulary → parse → timeline → facts → rules → report) kept by its
//! folders. A new `use` that points back up fails here, naming the cycle.
//!
//! Edges are read from the source text: every `crate::…` and `super::…` path
//! outside comments and `#[cfg(test)] mod tests`, resolved to the deepest
//! module file it names. A module's imports of its own ancestors are not
//! edges (a child may use what its parent declares).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate's modules (`parse::logline`, `""` for the root) and their files.
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap_or(&path).with_extension("");
            let mut segments: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if segments
                .last()
                .is_some_and(|last| ["mod", "lib", "main"].contains(&last.as_str()))
            {
                segments.pop();
            }
            out.insert(segments.join("::"), path);
        }
    }
    out
}

/// The code of a file that counts: its test module and comments cut.
fn code(text: &str) -> String {
    let text = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at]);
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every path that starts at `crate` or `super` in `code`, with a brace
/// group (`crate::a::{b, c::d}`) spread into one path per item.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts = (bytes[at..].starts_with(b"crate::") || bytes[at..].starts_with(b"super::"))
            && (at == 0 || !is_ident(bytes[at - 1]));
        if !starts {
            at += 1;
            continue;
        }
        let mut segments = Vec::new();
        let mut i = at;
        loop {
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            if start == i {
                break;
            }
            segments.push(code[start..i].to_owned());
            if bytes[i..].starts_with(b"::{") {
                let close = bytes[i..]
                    .iter()
                    .position(|&b| b == b'}')
                    .map_or(bytes.len(), |c| i + c);
                for item in code[i + 3..close].split(',') {
                    let first = item.trim().split("::").next().unwrap_or("").trim();
                    let first = first.split_whitespace().next().unwrap_or("");
                    if !first.is_empty() && first != "self" && first.bytes().all(is_ident) {
                        let mut path = segments.clone();
                        path.push(first.to_owned());
                        out.push(path);
                    }
                }
                i = close;
                break;
            }
            if bytes[i..].starts_with(b"::") {
                i += 2;
            } else {
                break;
            }
        }
        out.push(segments);
        at = i.max(at + 1);
    }
    out
}

/// The module a path names, relative to module `from`: the deepest module
/// file among its prefixes.
fn resolve(from: &str, path: &[String], known: &BTreeMap<String, PathBuf>) -> Option<String> {
    let mut base: Vec<&str> = if from.is_empty() {
        Vec::new()
    } else {
        from.split("::").collect()
    };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    let mut best = None;
    for take in 0..=rest.len() {
        let mut candidate: Vec<&str> = base.clone();
        candidate.extend(rest[..take].iter().map(String::as_str));
        let name = candidate.join("::");
        if known.contains_key(&name) {
            best = Some(name);
        }
    }
    best
}

/// Each module's imports of other modules of the same crate.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let known = modules(src);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &known {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for path in paths(&code(&text)) {
            let Some(target) = resolve(module, &path, &known) else {
                continue;
            };
            let ancestor = target.is_empty() || module.starts_with(&format!("{target}::"));
            if &target != module && !ancestor {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// The strongly connected groups of more than one module (Tarjan).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'e> {
        edges: &'e BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'e str, usize>,
        low: BTreeMap<&'e str, usize>,
        stack: Vec<&'e str>,
        on_stack: BTreeSet<&'e str>,
        found: Vec<Vec<String>>,
    }
    impl<'e> Walk<'e> {
        fn visit(&mut self, v: &'e str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn describe(edges: &BTreeMap<String, BTreeSet<String>>, group: &[String]) -> String {
    group
        .iter()
        .map(|m| {
            let inside: Vec<&str> = edges
                .get(m)
                .into_iter()
                .flatten()
                .filter(|t| group.contains(t))
                .map(String::as_str)
                .collect();
            format!("  {m} -> {}", inside.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_crate_has_an_import_cycle() {
    let mut problems = Vec::new();
    for crate_src in [
        "crates/hindsight-core/src",
        "crates/hindsight-cli/src",
        "crates/hindsight-wasm/src",
        "web/src",
    ] {
        let edges = graph(&root().join(crate_src));
        assert!(
            !edges.is_empty() || crate_src.contains("wasm"),
            "{crate_src}: no imports read; is the path right?"
        );
        // Between files, and between the top folders of the crate.
        let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, targets) in &edges {
            let head = from.split("::").next().unwrap_or("").to_owned();
            for target in targets {
                let target_head = target.split("::").next().unwrap_or("").to_owned();
                if target_head != head {
                    top.entry(head.clone()).or_default().insert(target_head);
                }
            }
        }
        for (level, graph) in [("files", &edges), ("folders", &top)] {
            for group in cycles(graph) {
                problems.push(format!(
                    "{crate_src}: import cycle between {level}:\n{}",
                    describe(graph, &group)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The core's stages import only earlier ones: a parser knows no timeline,
/// the timeline no facts, facts no rules, rules no report.
#[test]
fn the_core_flows_one_way() {
    let edges = graph(&root().join("crates/hindsight-core/src"));
    let stages = ["parse", "timeline", "facts", "rules", "report"];
    let mut problems = Vec::new();
    for (from, targets) in &edges {
        let head = from.split("::").next().unwrap_or("");
        let Some(mine) = stages.iter().position(|s| *s == head) else {
            continue;
        };
        for target in targets {
            let theirs = target.split("::").next().unwrap_or("");
            if stages.iter().position(|s| *s == theirs) > Some(mine) {
                problems.push(format!("{from} imports {target}, a later stage"));
            }
        }
    }
    // The vocabulary the stages share depends on none of them.
    for leaf in ["source", "shell", "secrets", "settings", "re", "decimal"] {
        for target in edges.get(leaf).into_iter().flatten() {
            if stages.contains(&target.split("::").next().unwrap_or("")) {
                problems.push(format!("{leaf} (vocabulary) imports {target}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reader itself finds what it is meant to: a cycle written on purpose.
#[test]
fn the_reader_sees_a_planted_cycle() {
    let dir = std::env::temp_dir().join(format!("hindsight-arch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).expect("temp dir");
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\n").expect("write");
    std::fs::write(
        dir.join("a/mod.rs"),
        "pub mod x;\nuse crate::b::{self, Thing};\n// use crate::c;\n",
    )
    .expect("write");
    std::fs::write(dir.join("a/x.rs"), "use super::super::b::Thing;\n").expect("write");
    std::fs::write(
        dir.join("b.rs"),
        "pub struct Thing;\nfn f() { crate::a::x::g(); }\n#[cfg(test)]\nmod tests { use crate::c; }\n",
    )
    .expect("write");
    let edges = graph(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        edges
            .get("b")
            .map(|t| t.iter().cloned().collect::<Vec<_>>()),
        Some(vec!["a::x".to_owned()])
    );
    assert_eq!(
        cycles(&edges),
        vec![vec!["a::x".to_owned(), "b".to_owned()]]
    );
}
