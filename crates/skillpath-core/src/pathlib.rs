//! Paths printed the way Python's `pathlib` prints them, as the reference CLI does.

use std::path::Path;

/// `str(pathlib.PurePosixPath(path))`: repeated and trailing slashes and `.` parts removed,
/// `..` kept, a leading `//` kept, an empty result shown as `.`.
pub fn display(path: &Path) -> String {
    let text = path.to_string_lossy();
    let root = if text.starts_with("//") && !text.starts_with("///") {
        "//"
    } else if text.starts_with('/') {
        "/"
    } else {
        ""
    };
    let parts: Vec<&str> = text
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    let joined = format!("{root}{}", parts.join("/"));
    if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

/// `pathlib.PurePosixPath(path).name`: the last part, or `""` for `.` and `/`.
pub fn name(path: &Path) -> &str {
    let text = path.to_str().unwrap_or_default();
    text.split('/')
        .rfind(|part| !part.is_empty() && *part != ".")
        .unwrap_or_default()
}

/// `pathlib.PurePosixPath(path).parent`, as displayed.
pub fn parent(path: &Path) -> String {
    let shown = display(path);
    match shown.rfind('/') {
        Some(0) => "/".to_owned(),
        Some(1) if shown.starts_with("//") => "//".to_owned(),
        Some(index) => shown[..index].to_owned(),
        None => ".".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_pathlib() {
        for (input, shown, last) in [
            ("a/", "a", "a"),
            ("./a", "a", "a"),
            ("a//b", "a/b", "b"),
            ("a/./b", "a/b", "b"),
            ("a/..", "a/..", ".."),
            ("//a", "//a", "a"),
            ("///a", "/a", "a"),
            (".", ".", ""),
            ("", ".", ""),
            ("/", "/", ""),
        ] {
            assert_eq!(display(Path::new(input)), shown, "{input}");
            assert_eq!(name(Path::new(input)), last, "{input}");
        }
        assert_eq!(parent(Path::new("SKILL.md")), ".");
        assert_eq!(parent(Path::new("a/b/SKILL.md")), "a/b");
        assert_eq!(parent(Path::new("/SKILL.md")), "/");
    }
}
