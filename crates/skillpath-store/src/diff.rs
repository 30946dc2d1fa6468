//! Unified diffs between two contents of a skill (or a package): its manifest and every file.

use similar::TextDiff;

use skillpath_model::SkillSnapshot;

/// The unified diff from `old` to `new`, file by file (the manifest first, then files in path
/// order); binary files that differ get a one-line note. Empty when the contents are equal.
pub fn unified_diff(
    old: &SkillSnapshot,
    new: &SkillSnapshot,
    old_label: &str,
    new_label: &str,
) -> String {
    let mut out = String::new();
    push_text_diff(
        &mut out,
        new.kind.manifest(),
        &old.skill_md,
        &new.skill_md,
        old_label,
        new_label,
    );
    let mut paths: Vec<&str> = old
        .files
        .iter()
        .chain(&new.files)
        .map(|f| f.path.as_str())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    for path in paths {
        let before = old
            .files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.bytes.as_slice());
        let after = new
            .files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.bytes.as_slice());
        if before == after {
            continue;
        }
        match (
            before.map(std::str::from_utf8),
            after.map(std::str::from_utf8),
        ) {
            (Some(Err(_)), _) | (_, Some(Err(_))) => {
                out.push_str(&format!(
                    "Binary file {path} differs ({old_label} → {new_label})\n"
                ));
            }
            (before, after) => {
                let before = before.and_then(Result::ok).unwrap_or_default();
                let after = after.and_then(Result::ok).unwrap_or_default();
                push_text_diff(&mut out, path, before, after, old_label, new_label);
            }
        }
    }
    out
}

fn push_text_diff(
    out: &mut String,
    path: &str,
    before: &str,
    after: &str,
    old_label: &str,
    new_label: &str,
) {
    if before == after {
        return;
    }
    let diff = TextDiff::from_lines(before, after);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("a/{path} ({old_label})"),
            &format!("b/{path} ({new_label})"),
        )
        .to_string();
    out.push_str(&text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillpath_model::SkillFile;

    #[test]
    fn diffs_skill_md_and_files() {
        let old = SkillSnapshot::new(
            "a\nb\n".into(),
            vec![SkillFile {
                path: "x.txt".into(),
                bytes: b"1\n".to_vec(),
            }],
        )
        .expect("valid");
        let new = SkillSnapshot::new(
            "a\nc\n".into(),
            vec![
                SkillFile {
                    path: "x.txt".into(),
                    bytes: b"1\n".to_vec(),
                },
                SkillFile {
                    path: "y.bin".into(),
                    bytes: vec![255],
                },
            ],
        )
        .expect("valid");
        let diff = unified_diff(&old, &new, "r1", "r2");
        assert_eq!(
            diff,
            "--- a/SKILL.md (r1)\n+++ b/SKILL.md (r2)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\nBinary file y.bin differs (r1 → r2)\n"
        );
        assert_eq!(unified_diff(&old, &old, "r1", "r1"), "");
    }
}
