//! No module of the store imports a module that imports it back, directly or around a loop
//! (see `ARCHITECTURE.md`): each module can be read knowing only the ones below it. An import is
//! a `use crate::…` or a `crate::…::` path in code that is not a test's; `lib.rs`'s `pub use`
//! re-exports resolve to the module they name.

use std::collections::BTreeMap;
use std::path::Path;

/// Every module of `src`, by its path (`backend::sqlite`), with its source text.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], into: &mut BTreeMap<String, String>) {
        let entries = std::fs::read_dir(dir).expect("the store's sources");
        for entry in entries {
            let path = entry.expect("an entry").path();
            let stem = path
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut name = prefix.to_vec();
            if path.is_dir() {
                name.push(stem);
                walk(&path, &name, into);
                continue;
            }
            if !matches!(stem.as_str(), "mod" | "lib") {
                name.push(stem);
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            into.insert(name.join("::"), text);
        }
    }
    let mut modules = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut modules,
    );
    modules
}

/// `text` without comments and without `#[cfg(test)]` items.
fn code(text: &str) -> String {
    let mut kept = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..start]);
        let item = &rest[start..];
        let end = match (item.find(';'), item.find('{')) {
            (Some(semicolon), Some(brace)) if semicolon < brace => semicolon + 1,
            (_, Some(brace)) => {
                let mut depth = 0;
                item[brace..]
                    .char_indices()
                    .find_map(|(i, c)| {
                        depth += match c {
                            '{' => 1,
                            '}' => -1,
                            _ => 0,
                        };
                        (depth == 0).then_some(brace + i + 1)
                    })
                    .unwrap_or(item.len())
            }
            _ => item.len(),
        };
        rest = &item[end..];
    }
    kept.push_str(rest);
    kept.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths after each `crate::` in `code`, those of a `crate::{…}` group one by one.
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let after = &code[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let group = group.split('}').next().unwrap_or("");
            paths.extend(group.split(',').map(|item| item.trim().to_owned()));
        } else {
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(after.len());
            paths.push(after[..end].trim_end_matches(':').to_owned());
        }
    }
    paths
}

/// What `lib.rs` re-exports, by name: the module it comes from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in code(lib).split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let (module, items) = match path.split_once("::{") {
            Some((module, items)) => (module, items.trim_end_matches('}')),
            None => path.rsplit_once("::").unwrap_or(("", path)),
        };
        for item in items
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let name = item.rsplit(" as ").next().unwrap_or(item);
            names.insert(name.to_owned(), module.to_owned());
        }
    }
    names
}

#[test]
fn no_module_of_the_store_imports_one_that_imports_it_back() {
    let modules = modules();
    let reexported = reexports(&modules[""]);
    let mut imports: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (name, text) in modules.iter().filter(|(name, _)| !name.is_empty()) {
        let mut targets: Vec<String> = crate_paths(&code(text))
            .into_iter()
            .filter_map(|path| {
                let mut segments: Vec<&str> = path.split("::").collect();
                let module = segments
                    .first()
                    .and_then(|first| reexported.get(*first))
                    .map(|module| module.split("::").collect::<Vec<_>>());
                if let Some(module) = module {
                    segments.splice(..1, module);
                }
                (1..=segments.len())
                    .rev()
                    .map(|n| segments[..n].join("::"))
                    .find(|candidate| modules.contains_key(candidate))
            })
            .filter(|target| target != name)
            .collect();
        targets.sort();
        targets.dedup();
        imports.insert(name, targets);
    }
    // A depth-first search: a module met again while it is on the path closes a circle.
    fn visit<'a>(
        module: &'a str,
        imports: &'a BTreeMap<&'a str, Vec<String>>,
        path: &mut Vec<&'a str>,
        done: &mut Vec<&'a str>,
    ) {
        if let Some(at) = path.iter().position(|on| *on == module) {
            panic!("an import circle: {} -> {module}", path[at..].join(" -> "));
        }
        if done.contains(&module) {
            return;
        }
        path.push(module);
        for target in imports.get(module).into_iter().flatten() {
            visit(target, imports, path, done);
        }
        path.pop();
        done.push(module);
    }
    let mut done = Vec::new();
    for module in imports.keys() {
        visit(module, &imports, &mut Vec::new(), &mut done);
    }
    assert!(imports.len() > 20, "the store's modules were not found");
}
