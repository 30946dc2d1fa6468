//! Files that do not belong in a skill: compiled executables, archives, large files, and
//! symlinks that lead out of it (which reading the folder left out).

use skillpath_core::bundle::SkillBundle;

use crate::Rule;
use crate::text::Found;

/// A file this large is reported.
const LARGE_BYTES: usize = 1024 * 1024;

/// What kind of executable `bytes` start like, if any.
fn executable(bytes: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    if starts(b"\x7fELF") {
        Some("an ELF executable")
    } else if starts(b"MZ") && bytes.len() > 64 {
        Some("a Windows executable")
    } else if [
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xce\xfa\xed\xfe",
        b"\xcf\xfa\xed\xfe",
        b"\xca\xfe\xba\xbe",
    ]
    .iter()
    .any(|magic| starts(*magic))
        && bytes.len() > 4096
    {
        // CAFEBABE is also a Java class; both are compiled code.
        Some("a Mach-O executable or Java class")
    } else if starts(b"\0asm") {
        Some("a WebAssembly module")
    } else {
        None
    }
}

/// What kind of archive `path` (`bytes`) is, if it is one.
fn archive(path: &str, bytes: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    let lower = path.to_ascii_lowercase();
    let named = |exts: &[&str]| exts.iter().any(|ext| lower.ends_with(ext));
    if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") {
        // Office documents are zip files too; they are documents, not archives of files.
        if named(&[".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp"]) {
            return None;
        }
        Some("a zip archive")
    } else if starts(b"\x1f\x8b") {
        Some("a gzip archive")
    } else if starts(b"7z\xbc\xaf\x27\x1c") {
        Some("a 7-Zip archive")
    } else if starts(b"Rar!\x1a\x07") {
        Some("a RAR archive")
    } else if starts(b"\xfd7zXZ\0") {
        Some("an xz archive")
    } else if starts(b"BZh") && named(&[".bz2", ".tbz", ".tbz2"]) {
        Some("a bzip2 archive")
    } else if bytes.get(257..262) == Some(b"ustar") {
        Some("a tar archive")
    } else {
        None
    }
}

pub(crate) fn check(bundle: &SkillBundle, found: &mut Found) {
    for (path, bytes) in &bundle.files {
        if let Some(kind) = executable(bytes) {
            found.about(Rule::Executable, path, bytes, format!("`{path}` is {kind}"));
        } else if let Some(kind) = archive(path, bytes) {
            found.about(Rule::Archive, path, bytes, format!("`{path}` is {kind}"));
        }
        if bytes.len() > LARGE_BYTES {
            found.about(
                Rule::LargeFile,
                path,
                bytes,
                format!(
                    "`{path}` is {:.1} MiB",
                    bytes.len() as f64 / (1024.0 * 1024.0)
                ),
            );
        }
    }
    for link in &bundle.beside.links_out {
        found.about(
            Rule::Symlink,
            link,
            &[],
            format!("`{link}` is a symlink out of the skill (it was left out)"),
        );
    }
}
