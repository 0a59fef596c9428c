//! The shape ARCHITECTURE.md describes, checked: no source file of the workspace over 1,000
//! lines, no import cycle between the modules of any crate, and the core's layers used only
//! downwards (`canonical` below `jose` below `signature` below `card`, `request` on top, `error`
//! under all).
//!
//! Imports are read from the source text (`crate::a::b`, `super::a` and `self::a` paths, and
//! children named by bare paths such as `use private::KeyPair;` in a `mod.rs` or `lib.rs`,
//! outside comments and `#[cfg(test)] mod tests`), which is how the modules name each other in
//! this workspace.
#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

use a2a_card_testkit::data::repo_root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 1000;

/// The core's layers, lowest first: a module may use its own layer and those before it.
const CORE_LAYERS: &[&str] = &["error", "canonical", "jose", "signature", "card", "request"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if !matches!(name.as_str(), "target" | "node_modules" | "pkg" | ".git") {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// The module path of a file under `src/` (`""` for lib.rs and main.rs).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|l| l == "mod")
        || (parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main"))
    {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments and without its unit-test module.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `prefix` path in `code` (`crate::a::b::c` gives `a::b::c`).
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let path: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == ':')
            .collect();
        let path = path.trim_end_matches(':').to_string();
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

/// The last segment of each direct child module of `m`.
fn children_of(modules: &BTreeMap<String, PathBuf>, m: &str) -> Vec<String> {
    modules
        .keys()
        .filter_map(|k| {
            let rest = if m.is_empty() {
                k.as_str()
            } else {
                k.strip_prefix(m)?.strip_prefix("::")?
            };
            (!rest.is_empty() && !rest.contains("::")).then(|| rest.to_string())
        })
        .collect()
}

/// Every path that starts with the bare module name `name` in `code` (`name::a::b` gives
/// `name::a::b`, `name::{x, y}` gives `name`); a name that is the tail of a longer path
/// (`crate::name::`, `other_name::`) is not bare.
fn bare_paths(code: &str, name: &str) -> Vec<String> {
    let prefix = format!("{name}::");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(&prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let tail: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == ':')
            .collect();
        let tail = tail.trim_end_matches(':');
        out.push(if tail.is_empty() {
            name.to_string()
        } else {
            format!("{name}::{tail}")
        });
    }
    out
}

/// The modules of one crate and the modules each one uses.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let mut graph = BTreeMap::new();
    for (m, f) in &modules {
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        let parent = m.rsplit_once("::").map_or("", |(p, _)| p);
        let mut refs = paths_after(&code, "crate::");
        for r in paths_after(&code, "super::") {
            refs.push(if parent.is_empty() {
                r
            } else {
                format!("{parent}::{r}")
            });
        }
        let within = |r: &str| {
            if m.is_empty() {
                r.to_string()
            } else {
                format!("{m}::{r}")
            }
        };
        for r in paths_after(&code, "self::") {
            refs.push(within(&r));
        }
        // Children named by bare paths (`use private::KeyPair;`, `pub use kind::{..}`,
        // `pem::parse(..)`), which is how a `mod.rs` or `lib.rs` reaches its own modules.
        for child in children_of(&modules, m) {
            refs.extend(bare_paths(&code, &child).into_iter().map(|r| within(&r)));
        }
        let mut uses = BTreeSet::new();
        for r in refs {
            let parts: Vec<&str> = r.split("::").collect();
            // The longest prefix that is a module of this crate.
            if let Some(target) = (1..=parts.len())
                .rev()
                .map(|n| parts[..n].join("::"))
                .find(|c| modules.contains_key(c))
            {
                if target != *m && !m.starts_with(&format!("{target}::")) && !target.is_empty() {
                    uses.insert(target);
                }
            }
        }
        graph.insert(m.clone(), uses);
    }
    graph
}

/// The groups of modules that use each other in a circle (Tarjan's strongly connected
/// components of more than one module).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn crate_sources() -> Vec<PathBuf> {
    let crates = repo_root().join("crates");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    assert!(
        out.len() >= 5,
        "expected the workspace's crates under {}",
        crates.display()
    );
    out
}

#[test]
fn no_source_file_is_over_1000_lines() {
    let root = repo_root();
    let mut files = Vec::new();
    for dir in ["crates", "fuzz/fuzz_targets"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "found only {} Rust files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.strip_prefix(&root).unwrap().display()))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}

#[test]
fn no_crate_has_an_import_cycle() {
    let mut problems = Vec::new();
    for src in crate_sources() {
        let graph = module_graph(&src);
        assert!(
            graph.len() > 1 || src.ends_with("a2a-card-testkit/src"),
            "{}: no modules",
            src.display()
        );
        let found = cycles(&graph);
        if !found.is_empty() {
            problems.push(format!(
                "{}: modules that import each other: {found:?}",
                src.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_core_layers_are_used_downwards_only() {
    let graph = module_graph(&repo_root().join("crates/a2a-card/src"));
    let layer = |m: &str| CORE_LAYERS.iter().position(|l| m.split("::").next() == Some(*l));
    let mut seen = BTreeSet::new();
    for (m, uses) in &graph {
        let Some(from) = layer(m) else { continue };
        seen.insert(CORE_LAYERS[from]);
        for u in uses {
            if let Some(to) = layer(u) {
                assert!(
                    to <= from,
                    "{m} (layer {}) uses {u} (layer {}), a layer above it",
                    CORE_LAYERS[from],
                    CORE_LAYERS[to]
                );
            }
        }
    }
    assert_eq!(seen.len(), CORE_LAYERS.len(), "layers found: {seen:?}");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    // The checker itself, on a graph with a known cycle, so that the tests above cannot pass
    // by finding nothing.
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a".into(), ["b".to_string()].into());
    g.insert("b".into(), ["c".to_string()].into());
    g.insert("c".into(), ["a".to_string()].into());
    g.insert("d".into(), ["a".to_string()].into());
    let found = cycles(&g);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].iter().collect::<BTreeSet<_>>(),
        ["a", "b", "c"]
            .iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<_>>()
            .iter()
            .collect()
    );
    assert_eq!(
        paths_after("use crate::jose::keys::{PublicKey};", "crate::"),
        ["jose::keys::"].map(|s| s.trim_end_matches(':').to_string())
    );
}

#[test]
fn the_graph_follows_children_named_by_bare_paths() {
    // A cycle that goes through a `mod.rs` re-exporting its child by a bare path: `c` uses
    // `a`, whose `mod.rs` names its child `a::b` as `b::X`, and `a::b` uses `c`.
    let dir = std::env::temp_dir().join(format!("a2a-card-arch-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod c;\npub use c::Y;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "mod b;\npub use b::{X};\n").unwrap();
    std::fs::write(src.join("a/b.rs"), "pub struct X(crate::c::Y);\n").unwrap();
    std::fs::write(src.join("c.rs"), "pub struct Y;\nfn f(_: crate::a::X) {}\n").unwrap();
    let graph = module_graph(&src);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(graph["a"].contains("a::b"), "{graph:?}");
    assert_eq!(
        graph[""],
        ["c".to_string()].into(),
        "lib.rs names `c` by a bare path"
    );
    let found = cycles(&graph);
    assert_eq!(found.len(), 1, "{graph:?}");
    assert_eq!(
        found[0].iter().map(String::as_str).collect::<BTreeSet<_>>(),
        ["a", "a::b", "c"].into()
    );
}
