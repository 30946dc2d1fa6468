//! Which module of a crate imports which: the graph the "no import circle" invariant is held on.
//!
//! A module is a file (`src/lib.rs` is the crate root, `src/a/mod.rs` and `src/a.rs` are `a`).
//! It imports another when its code names it: a `use` (not a `pub use`, which only hands a name
//! on and is followed as a re-export), or a path in code (`crate::a::f()`, `super::b::X`, `c::g()`
//! for a child `c`). Comments, string literals, `#[cfg(test)]` items and `macro_rules!` bodies are
//! left out: tests and macros may name what they like.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `[]` is the root, `["golden_path", "render"]` a file.
pub(super) type ModulePath = Vec<String>;

/// The modules of one crate and the imports between them.
pub(super) struct Graph {
    /// Each module's file, relative to the crate folder.
    pub(super) files: BTreeMap<ModulePath, PathBuf>,
    /// Who imports whom.
    pub(super) edges: BTreeMap<ModulePath, BTreeSet<ModulePath>>,
}

impl Graph {
    /// Reads the crate in `crate_dir` (its `src/`).
    pub(super) fn read(crate_dir: &Path) -> Graph {
        let src = crate_dir.join("src");
        let mut files = BTreeMap::new();
        collect(&src, &src, &mut files);
        let code: BTreeMap<ModulePath, String> = files
            .iter()
            .map(|(module, file): (&ModulePath, &PathBuf)| {
                let text = std::fs::read_to_string(src.join(file)).expect("read a source file");
                (module.clone(), strip(&text))
            })
            .collect();
        let reexports = reexports(&code, &files);
        let mut edges: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
        for (module, text) in &code {
            for path in paths(text) {
                let Some(absolute) = absolute(module, &path, &files) else {
                    continue;
                };
                let target = resolve(&absolute, &files, &reexports);
                if &target != module && !module.starts_with(&target) {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
        let files = files
            .into_iter()
            .map(|(module, file)| (module, Path::new("src").join(file)))
            .collect();
        Graph { files, edges }
    }

    /// The import circles: groups of two or more modules each reachable from every other
    /// (Tarjan's strongly connected components), each as its files.
    pub(super) fn circles(&self) -> Vec<Vec<PathBuf>> {
        let modules: Vec<&ModulePath> = self.files.keys().collect();
        let mut index = BTreeMap::new();
        let mut low = BTreeMap::new();
        let mut stack = Vec::new();
        let mut on_stack = BTreeSet::new();
        let mut circles = Vec::new();
        let mut counter = 0;
        for module in &modules {
            if !index.contains_key(*module) {
                self.connect(
                    module,
                    &mut counter,
                    &mut index,
                    &mut low,
                    &mut stack,
                    &mut on_stack,
                    &mut circles,
                );
            }
        }
        circles
    }

    #[allow(clippy::too_many_arguments)] // Tarjan's state, kept together in one recursion.
    fn connect<'a>(
        &'a self,
        module: &'a ModulePath,
        counter: &mut usize,
        index: &mut BTreeMap<&'a ModulePath, usize>,
        low: &mut BTreeMap<&'a ModulePath, usize>,
        stack: &mut Vec<&'a ModulePath>,
        on_stack: &mut BTreeSet<&'a ModulePath>,
        circles: &mut Vec<Vec<PathBuf>>,
    ) {
        index.insert(module, *counter);
        low.insert(module, *counter);
        *counter += 1;
        stack.push(module);
        on_stack.insert(module);
        for next in self.edges.get(module).into_iter().flatten() {
            if !index.contains_key(next) {
                self.connect(next, counter, index, low, stack, on_stack, circles);
                let lowest = low[module].min(low[next]);
                low.insert(module, lowest);
            } else if on_stack.contains(next) {
                let lowest = low[module].min(index[next]);
                low.insert(module, lowest);
            }
        }
        if low[module] == index[module] {
            let mut members = Vec::new();
            while let Some(member) = stack.pop() {
                on_stack.remove(member);
                members.push(self.files[member].clone());
                if member == module {
                    break;
                }
            }
            if members.len() > 1 {
                members.sort();
                circles.push(members);
            }
        }
    }
}

/// Every `.rs` file under `dir`, by module path.
fn collect(src: &Path, dir: &Path, files: &mut BTreeMap<ModulePath, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read a source folder")
        .map(|entry| entry.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(src, &path, files);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let relative = path.strip_prefix(src).expect("under src").to_path_buf();
        let mut module: ModulePath = relative
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        files.insert(module, relative);
    }
}

/// `text` without comments, string and character literals, `#[cfg(test)]` items and
/// `macro_rules!` bodies; what is left is code whose paths count.
fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |end| end + 2);
        } else if let Some((body, hashes)) =
            raw_string_start(rest).filter(|_| !after_ident(text, i))
        {
            let end = format!("\"{}", "#".repeat(hashes));
            i += rest[body..]
                .find(&end)
                .map_or(rest.len(), |e| body + e + end.len());
            out.push_str("\"\"");
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            i += j + 1;
            out.push_str("\"\"");
        } else if let Some(length) = char_literal(rest) {
            i += length;
            out.push_str("' '");
        } else {
            let c = rest.chars().next().expect("not at the end");
            out.push(c);
            i += c.len_utf8();
        }
    }
    drop_items(&out)
}

/// Where the body of a raw string that starts `rest` begins (`r"`, `r#"`, `br"`) and how many
/// `#` close it.
fn raw_string_start(rest: &str) -> Option<(usize, usize)> {
    let after = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
    let hashes = after.len() - after.trim_start_matches('#').len();
    let opening = rest.len() - after.len() + hashes;
    after[hashes..]
        .starts_with('"')
        .then_some((opening + 1, hashes))
}

/// Whether the byte at `at` continues an identifier (so an `r` there starts no raw string).
fn after_ident(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The length of the character literal that starts `rest` (`'a'`, `'\n'`, `'"'`), not a lifetime.
fn char_literal(rest: &str) -> Option<usize> {
    let mut chars = rest.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let (_, first) = chars.next()?;
    if first == '\\' {
        return rest[2..].find('\'').map(|end| end + 3);
    }
    let (at, close) = chars.next()?;
    (close == '\'').then_some(at + 1)
}

/// `code` without the items after `#[cfg(test)]` and the bodies of `macro_rules!`.
fn drop_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    loop {
        let next = ["#[cfg(test)]", "macro_rules!"]
            .iter()
            .filter_map(|marker| rest.find(marker))
            .min();
        let Some(start) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        // The item ends at its first `;` outside braces, or where its first brace closes.
        let mut depth = 0usize;
        let mut end = rest.len();
        for (at, c) in rest.char_indices().skip(1) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = at + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = at + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
}

/// Every path the code names: `use` trees expanded (`use a::{b, c::d}` gives `a::b`, `a::c::d`)
/// except `pub use`, and `x::y` paths in code.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let before = rest[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')');
        found.extend(code_paths(&rest[..at]));
        let statement_end = rest[at..].find(';').map_or(rest.len(), |end| at + end);
        if !public {
            expand(&[], rest[at + 3..statement_end].trim(), &mut found);
        }
        rest = &rest[(statement_end + 1).min(rest.len())..];
    }
    found.extend(code_paths(rest));
    found
}

/// Where `word` stands alone in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// A `use` tree's paths, each after `prefix`.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut head = prefix.to_vec();
        head.extend(segments(tree[..open].trim_end_matches("::")));
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        for part in split_top(inner) {
            expand(&head, part, out);
        }
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        let mut full = prefix.to_vec();
        full.extend(segments(path));
        if full.last().is_some_and(|last| last == "self") {
            full.pop();
        }
        if !full.is_empty() {
            out.push(full);
        }
    }
}

/// `inner` split at its top-level commas.
fn split_top(inner: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// `a::b::c` as its names.
fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The `a::b::c` paths in code (at least two names).
fn code_paths(code: &str) -> Vec<Vec<String>> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut found = Vec::new();
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let follows_ident = i > 0 && (is_ident(chars[i - 1].1) || chars[i - 1].1 == ':');
        if !is_ident(c) || follows_ident {
            i += 1;
            continue;
        }
        let mut j = i;
        let end = loop {
            while j < chars.len() && is_ident(chars[j].1) {
                j += 1;
            }
            let end = chars.get(j).map_or(code.len(), |(at, _)| *at);
            if code[end..].starts_with("::") && code[end + 2..].starts_with(is_ident) {
                j += 2;
                continue;
            }
            break end;
        };
        let path = segments(&code[start..end]);
        if path.len() > 1 {
            found.push(path);
        }
        i = j.max(i + 1);
    }
    found
}

/// `path`, named in `module`, as a path from the crate root, when it starts inside the crate.
fn absolute(
    module: &ModulePath,
    path: &[String],
    files: &BTreeMap<ModulePath, PathBuf>,
) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.clone(),
        "super" => {
            let mut base = module.clone();
            base.pop();
            let mut rest = rest;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            return Some(base);
        }
        child => {
            let mut own = module.clone();
            own.push(child.to_owned());
            if !files.contains_key(&own) {
                return None;
            }
            own.pop();
            own.push(child.to_owned());
            own.extend(rest.iter().cloned());
            return Some(own);
        }
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The module an absolute path lands in: its longest prefix that is a module, through the
/// names that module re-exports (`pub use x::Name`).
fn resolve(
    path: &[String],
    files: &BTreeMap<ModulePath, PathBuf>,
    reexports: &BTreeMap<(ModulePath, String), ModulePath>,
) -> ModulePath {
    let mut length = path.len();
    while length > 0 && !files.contains_key(&path[..length].to_vec()) {
        length -= 1;
    }
    let module = path[..length].to_vec();
    match path.get(length) {
        Some(name) => reexports
            .get(&(module.clone(), name.clone()))
            .cloned()
            .unwrap_or(module),
        None => module,
    }
}

/// What each module hands on with `pub use`: (module, name) → the module the name comes from.
fn reexports(
    code: &BTreeMap<ModulePath, String>,
    files: &BTreeMap<ModulePath, PathBuf>,
) -> BTreeMap<(ModulePath, String), ModulePath> {
    let mut map = BTreeMap::new();
    for (module, text) in code {
        let mut rest = text.as_str();
        while let Some(at) = rest.find("pub use ") {
            let end = rest[at..].find(';').map_or(rest.len(), |e| at + e);
            let mut found = Vec::new();
            expand(&[], &rest[at + 8..end], &mut found);
            for path in found {
                let name = path.last().cloned().unwrap_or_default();
                if let Some(absolute) = absolute(module, &path, files) {
                    let mut length = absolute.len();
                    while length > 0 && !files.contains_key(&absolute[..length].to_vec()) {
                        length -= 1;
                    }
                    map.insert((module.clone(), name), absolute[..length].to_vec());
                }
            }
            rest = &rest[(end + 1).min(rest.len())..];
        }
    }
    map
}
