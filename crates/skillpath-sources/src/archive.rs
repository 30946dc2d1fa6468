//! Archives as sources: a `.tar.gz`, `.tar` or `.zip` (told by its first bytes, not its name)
//! read into memory as a [`SourceTree`], within limits, so that a hostile archive is refused
//! before it can fill memory: an entry whose path is absolute or climbs out with `..`
//! (zip-slip) refuses the whole archive, and so does unpacking more than [`MAX_UNPACKED`] bytes
//! or [`MAX_ENTRIES`] entries (a decompression bomb). Nothing is written to disk here.

use std::io::Read;

use crate::SourceError;
use crate::tree::{Entry, SourceTree};

/// The most bytes an archive may unpack to.
pub const MAX_UNPACKED: u64 = 512 * 1024 * 1024;

/// The most entries an archive may hold.
pub const MAX_ENTRIES: usize = 100_000;

/// Reads the archive `bytes` (named `shown` in errors).
pub fn read(bytes: &[u8], shown: &str) -> Result<SourceTree, SourceError> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        read_zip(bytes, shown)
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        read_tar(flate2::read::GzDecoder::new(bytes), shown)
    } else if bytes.get(257..262) == Some(b"ustar") {
        read_tar(bytes, shown)
    } else {
        Err(SourceError::new(format!(
            "`{shown}` is no `.tar.gz`, `.tar` or `.zip` archive"
        )))
    }
}

/// `files` (relative `/`-separated paths → bytes) as a `.tar.gz` that depends on nothing but
/// them: entries in path order, each a regular file with mode 0644, owner 0, time 0, and a gzip
/// header without a name or a time. Equal skills give equal archives, on any server, so an
/// index's digest of one stays true.
pub fn tar_gz(files: &std::collections::BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>, SourceError> {
    let failed = |e: std::io::Error| SourceError::new(format!("cannot write an archive: {e}"));
    let gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    builder.mode(tar::HeaderMode::Deterministic);
    for (path, bytes) in files {
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder
            .append_data(&mut header, path, bytes.as_slice())
            .map_err(failed)?;
    }
    builder
        .into_inner()
        .map_err(failed)?
        .finish()
        .map_err(failed)
}

/// `files` (relative `/`-separated paths → bytes) as a `.zip` that depends on nothing but them,
/// as [`tar_gz`] does for tar: entries at the archive's root in path order, each deflated,
/// dated 1980-01-01 00:00 (the earliest a zip says) with mode 0644. What a registry serves as a
/// version's download: the same bytes from every replica.
pub fn zip(files: &std::collections::BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>, SourceError> {
    use std::io::Write as _;
    let failed = |e: zip::result::ZipError| SourceError::new(format!("cannot write a zip: {e}"));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, bytes) in files {
        writer.start_file(path.as_str(), options).map_err(failed)?;
        writer
            .write_all(bytes)
            .map_err(|e| SourceError::new(format!("cannot write a zip: {e}")))?;
    }
    Ok(writer.finish().map_err(failed)?.into_inner())
}

/// The bookkeeping of one archive's reading: entries and bytes so far.
struct Budget<'a> {
    shown: &'a str,
    entries: usize,
    unpacked: u64,
}

impl Budget<'_> {
    /// Counts one entry of `size` bytes; `Err` past a limit.
    fn spend(&mut self, size: u64) -> Result<(), SourceError> {
        self.entries += 1;
        self.unpacked = self.unpacked.saturating_add(size);
        if self.entries > MAX_ENTRIES {
            return Err(SourceError::new(format!(
                "`{}` holds more than {MAX_ENTRIES} entries: refused",
                self.shown
            )));
        }
        if self.unpacked > MAX_UNPACKED {
            return Err(SourceError::new(format!(
                "`{}` unpacks to more than {MAX_UNPACKED} bytes (a decompression bomb?): refused",
                self.shown
            )));
        }
        Ok(())
    }

    /// Reads at most one byte over the file limit of `reader`, counting what was read.
    fn read_file(&mut self, reader: impl Read) -> Result<Entry, SourceError> {
        let limit = crate::tree::MAX_FILE_SIZE;
        let mut bytes = Vec::new();
        reader
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| SourceError::new(format!("`{}` cannot be unpacked: {e}", self.shown)))?;
        self.spend(bytes.len() as u64)?;
        if bytes.len() as u64 > limit {
            return Ok(Entry::TooLarge(bytes.len() as u64));
        }
        Ok(Entry::File(bytes))
    }
}

/// The entry path `raw` as a relative `/`-separated path; `Err`: it leaves the archive.
fn entry_path(raw: &str, shown: &str) -> Result<Option<String>, SourceError> {
    let unix = raw.replace('\\', "/");
    if unix.starts_with('/')
        || unix.split('/').any(|part| part == "..")
        || unix.contains(':') && unix.chars().nth(1) == Some(':')
    {
        return Err(SourceError::new(format!(
            "`{shown}` has the entry `{raw}`, which leaves the archive's folder: refused"
        )));
    }
    let parts: Vec<&str> = unix
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    Ok((!parts.is_empty()).then(|| parts.join("/")))
}

fn read_tar(reader: impl Read, shown: &str) -> Result<SourceTree, SourceError> {
    let broken = |e: std::io::Error| SourceError::new(format!("`{shown}` cannot be unpacked: {e}"));
    let mut archive = tar::Archive::new(reader);
    let mut tree = SourceTree::default();
    let mut budget = Budget {
        shown,
        entries: 0,
        unpacked: 0,
    };
    for entry in archive.entries().map_err(broken)? {
        let entry = entry.map_err(broken)?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let Some(path) = entry_path(&raw, shown)? else {
            continue;
        };
        let kind = entry.header().entry_type();
        let value = if kind.is_file() {
            budget.read_file(entry)?
        } else if kind.is_symlink() || kind.is_hard_link() {
            budget.spend(0)?;
            let target = entry
                .link_name_bytes()
                .map(|t| String::from_utf8_lossy(&t).into_owned())
                .unwrap_or_default();
            Entry::Symlink(target)
        } else {
            budget.spend(0)?;
            continue;
        };
        tree.entries.insert(path, value);
    }
    Ok(tree)
}

fn read_zip(bytes: &[u8], shown: &str) -> Result<SourceTree, SourceError> {
    let broken =
        |e: zip::result::ZipError| SourceError::new(format!("`{shown}` cannot be unpacked: {e}"));
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(broken)?;
    if archive.len() > MAX_ENTRIES {
        return Err(SourceError::new(format!(
            "`{shown}` holds more than {MAX_ENTRIES} entries: refused"
        )));
    }
    let mut tree = SourceTree::default();
    let mut budget = Budget {
        shown,
        entries: 0,
        unpacked: 0,
    };
    for index in 0..archive.len() {
        let file = archive.by_index(index).map_err(broken)?;
        let raw = file.name().map_err(broken)?.into_owned();
        let Some(path) = entry_path(&raw, shown)? else {
            continue;
        };
        if file.is_dir() {
            budget.spend(0)?;
            continue;
        }
        let value = if file.is_symlink() {
            let mut target = String::new();
            file.take(4096)
                .read_to_string(&mut target)
                .map_err(|e| SourceError::new(format!("`{shown}` cannot be unpacked: {e}")))?;
            budget.spend(0)?;
            Entry::Symlink(target)
        } else {
            budget.read_file(file)?
        };
        tree.entries.insert(path, value);
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn raw_tar_gz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, bytes) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            // Written by hand, so that `..` and absolute paths reach the archive.
            let name = &mut header.as_old_mut().name;
            name[..path.len()].copy_from_slice(path.as_bytes());
            header.set_cksum();
            builder.append(&header, *bytes).expect("append");
        }
        let tar = builder.into_inner().expect("tar");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&tar).expect("gz");
        gz.finish().expect("gz")
    }

    #[test]
    fn a_tarball_and_a_zip_are_read_into_memory() {
        let tarball = raw_tar_gz(&[
            ("pkg/SKILL.md", b"---\nname: a\n---\n"),
            ("pkg/x.txt", b"x"),
        ]);
        let tree = read(&tarball, "a.tar.gz").expect("read");
        assert_eq!(
            tree.entries.get("pkg/x.txt"),
            Some(&Entry::File(b"x".to_vec()))
        );
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        zip.start_file("SKILL.md", options).expect("zip");
        zip.write_all(b"---\nname: b\n---\n").expect("zip");
        let bytes = zip.finish().expect("zip").into_inner();
        let tree = read(&bytes, "b.zip").expect("read");
        assert!(tree.entries.contains_key("SKILL.md"));
        assert!(read(b"plain text", "c.bin").is_err());
    }

    #[test]
    fn a_written_archive_is_deterministic_and_reads_back() {
        let files = std::collections::BTreeMap::from([
            ("SKILL.md".to_owned(), b"---\nname: a\n---\n".to_vec()),
            ("scripts/run.sh".to_owned(), b"echo\n".to_vec()),
        ]);
        let one = tar_gz(&files).expect("write");
        assert_eq!(one, tar_gz(&files).expect("write"));
        let tree = read(&one, "a.tar.gz").expect("read");
        assert_eq!(
            tree.entries.get("scripts/run.sh"),
            Some(&Entry::File(b"echo\n".to_vec()))
        );
        assert_eq!(tree.entries.len(), 2);
        let zipped = zip(&files).expect("write");
        assert_eq!(zipped, zip(&files).expect("write"));
        let tree = read(&zipped, "a.zip").expect("read");
        assert_eq!(
            tree.entries.get("SKILL.md"),
            Some(&Entry::File(b"---\nname: a\n---\n".to_vec()))
        );
        assert_eq!(tree.entries.len(), 2);
    }

    #[test]
    fn zip_slip_and_bombs_are_refused() {
        for evil in ["../escape.txt", "/etc/cron.d/x", "a/../../b"] {
            let tarball = raw_tar_gz(&[("SKILL.md", b"x"), (evil, b"pwned")]);
            let error = read(&tarball, "evil.tar.gz").expect_err(evil);
            assert!(
                error.message.contains("leaves the archive's folder"),
                "{error}"
            );
        }
        // 600 MiB of zeros compress to well under a megabyte.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let mut builder = tar::Builder::new(&mut gz);
        let chunk = vec![0u8; 15 * 1024 * 1024];
        for index in 0..40 {
            let mut header = tar::Header::new_gnu();
            header.set_size(chunk.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder
                .append_data(&mut header, format!("zeros-{index}"), chunk.as_slice())
                .expect("append");
        }
        builder.finish().expect("finish");
        drop(builder);
        let bomb = gz.finish().expect("gz");
        assert!(bomb.len() < 4 * 1024 * 1024, "{}", bomb.len());
        let error = read(&bomb, "bomb.tar.gz").expect_err("bomb");
        assert!(error.message.contains("decompression bomb"), "{error}");
    }
}
