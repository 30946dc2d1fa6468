//! The differential test: our CLI in `--mode skills-ref` against the real reference CLI
//! (`skills-ref` 0.1.1, `agentskills`) on every edge case, on argv-level cases, on every skill
//! of the shared corpus, and on mutated copies of corpus skills (a seeded generator).
//!
//! Both CLIs must agree on exit code, stdout and stderr, byte for byte, except for what the
//! issue exempts: the text after `Invalid YAML in frontmatter: ` (strictyaml's wording), usage
//! errors (exit code 2 must match, the wording not), and Python tracebacks (exit code must
//! match). Anything else that differs must be listed in `expected-differences.md` with a
//! reason; a listed difference that no longer occurs fails the test too, so the list stays true.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::edge_cases::{EDGE_CASES, Layout};
use crate::support::{corpus_dir, reference_python, skillpath_bin};

const YAML_ERROR: &str = "Invalid YAML in frontmatter: ";

/// One invocation run through both CLIs.
struct Invocation {
    /// Stable name, as used in `expected-differences.md`.
    id: String,
    cwd: PathBuf,
    argv: Vec<String>,
}

/// What one CLI did.
#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    stdout: String,
    stderr: String,
    exit_code: i64,
    /// Python exception type for an uncaught exception (reference only).
    exception: Option<String>,
}

#[test]
fn skills_ref_mode_matches_the_reference_cli() {
    let temp = tempfile::tempdir().expect("tempdir");
    let edge_root = temp.path().join("edge");
    materialise_edge_cases(&edge_root);

    let mut invocations = Vec::new();
    for case in EDGE_CASES {
        for command in ["validate", "read-properties", "to-prompt"] {
            invocations.push(Invocation {
                id: format!("edge:{}", case.dir),
                cwd: edge_root.clone(),
                argv: vec![command.to_owned(), "--".to_owned(), case.dir.to_owned()],
            });
        }
    }
    let edge_count = invocations.len();
    invocations.extend(argv_cases(&edge_root));
    let argv_count = invocations.len() - edge_count;

    let corpus = corpus_dir();
    let skills = skill_dirs(&corpus);
    assert!(
        skills.len() >= 600,
        "the corpus at {} has only {} skills",
        corpus.display(),
        skills.len()
    );
    for skill in &skills {
        let relative = skill
            .strip_prefix(&corpus)
            .expect("inside the corpus")
            .display()
            .to_string();
        for command in ["validate", "read-properties", "to-prompt"] {
            invocations.push(Invocation {
                id: format!("corpus:{relative}"),
                cwd: corpus.clone(),
                argv: vec![command.to_owned(), relative.clone()],
            });
        }
    }

    let mutants_root = temp.path().join("mutants");
    let mutants = write_mutants(&skills, &mutants_root, MUTANTS);
    for mutant in &mutants {
        for command in ["validate", "read-properties"] {
            invocations.push(Invocation {
                id: format!("mutant:{mutant}"),
                cwd: mutants_root.clone(),
                argv: vec![command.to_owned(), mutant.clone()],
            });
        }
    }

    let reference = run_reference(&invocations);
    let ours = run_ours(&invocations);

    let expected = expected_differences();
    let mut unexplained = Vec::new();
    let mut seen_expected = BTreeSet::new();
    for ((invocation, theirs), ours) in invocations.iter().zip(&reference).zip(&ours) {
        let Some(difference) = compare(theirs, ours) else {
            continue;
        };
        let key = (invocation.id.clone(), invocation.argv[0].clone());
        if expected.contains_key(&key) {
            seen_expected.insert(key);
            continue;
        }
        unexplained.push(format!(
            "{} `{}` (cwd {}): {difference}\n  reference: {theirs:?}\n  skillpath: {ours:?}",
            invocation.id,
            invocation.argv.join(" "),
            invocation.cwd.display()
        ));
    }
    let stale: Vec<_> = expected
        .keys()
        .filter(|key| !seen_expected.contains(*key))
        .collect();
    let count = |f: &dyn Fn(&Outcome) -> bool| reference.iter().filter(|o| f(o)).count();
    eprintln!(
        "differential: reference outcomes: {} exit 0, {} exit 1 ({} of them Python tracebacks), {} exit 2",
        count(&|o| o.exit_code == 0),
        count(&|o| o.exit_code == 1),
        count(&|o| o.exception.is_some()),
        count(&|o| o.exit_code == 2),
    );
    eprintln!(
        "differential: compared {} invocations ({} edge cases x 3 commands, {} argv-level cases, {} corpus skills x 3 commands, {} mutated corpus skills x 2 commands): {} unexplained differences, {} expected differences",
        invocations.len(),
        EDGE_CASES.len(),
        argv_count,
        skills.len(),
        mutants.len(),
        unexplained.len(),
        seen_expected.len(),
    );
    assert!(
        unexplained.is_empty(),
        "{} unexplained differences:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed in expected-differences.md but no longer different: {stale:?}"
    );
}

/// How many mutated copies of corpus skills the test generates.
const MUTANTS: usize = 1500;

/// Bytes that stress the YAML reader: delimiters, indicators, quotes, escapes, tabs, control
/// characters, a BOM, invalid UTF-8 and the Unicode line breaks.
const MUTATIONS: &[&[u8]] = &[
    b"---",
    b"\n",
    b":",
    b": ",
    b"\t",
    b" ",
    b"&a ",
    b"*a",
    b"[",
    b"]",
    b"{",
    b"}",
    b"!!str ",
    b"\xff",
    b"\x00",
    b"\x01",
    b"\xef\xbb\xbf",
    b"|",
    b"|-",
    b">+",
    b"\"",
    b"'",
    b"#",
    b" #",
    b"\r\n",
    b"\r",
    b"? ",
    b"- ",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
    b"\xe2\x80\xa9",
    b"%",
    b"@",
    b"`",
    b"...",
    b"\\",
    b",",
    b"name: x\n",
    b"description: y\n",
    b"metadata:\n  a: b\n",
    b"  - x\n",
    b"~",
    b"::",
];

/// Writes `count` skills made by mutating the frontmatter of corpus skills (insertions of
/// [`MUTATIONS`], deletions, printable ASCII characters, truncation), with a fixed seed so every run tests the
/// same inputs. Returns the folder names.
fn write_mutants(skills: &[PathBuf], root: &Path, count: usize) -> Vec<String> {
    let mut state: u64 = 0x5eed_5eed_5eed_5eed;
    let mut next = move |bound: usize| {
        // xorshift64*: enough randomness for test inputs, no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % bound.max(1)
    };
    let mut names = Vec::with_capacity(count);
    for index in 0..count {
        let source = &skills[next(skills.len())];
        let mut data = std::fs::read(source.join("SKILL.md")).expect("read corpus skill");
        data.truncate(1500);
        let frontmatter_end = data
            .windows(3)
            .skip(3)
            .position(|w| w == b"---")
            .map_or(300, |p| p + 3);
        for _ in 0..=next(6) {
            let at = next(frontmatter_end.min(data.len()) + 1);
            match next(20) {
                0..=11 => {
                    let insert = MUTATIONS[next(MUTATIONS.len())];
                    data.splice(at..at, insert.iter().copied());
                }
                12..=16 => {
                    let end = (at + 1 + next(8)).min(data.len());
                    data.drain(at.min(end)..end);
                }
                17 | 18 => data.insert(at, b' ' + next(95) as u8),
                _ => data.truncate(at),
            }
        }
        let name = format!("m{index}");
        let dir = root.join(&name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("SKILL.md"), &data).expect("write mutant");
        names.push(name);
    }
    names
}

/// Compares two outcomes under the issue's exemptions; `Some(reason)` when they differ.
fn compare(reference: &Outcome, ours: &Outcome) -> Option<String> {
    if reference.exit_code != ours.exit_code {
        return Some(format!(
            "exit code {} vs {}",
            reference.exit_code, ours.exit_code
        ));
    }
    if reference.exit_code == 2 {
        return None; // usage errors: wording differs, the exit code must match
    }
    if reference.stdout != ours.stdout {
        return Some("stdout differs".to_owned());
    }
    if reference.exception.is_some() {
        return None; // a Python traceback: the exit code must match
    }
    let cut = |text: &str| {
        text.find(YAML_ERROR).map_or(text.to_owned(), |at| {
            text[..at + YAML_ERROR.len()].to_owned()
        })
    };
    (cut(&reference.stderr) != cut(&ours.stderr)).then(|| "stderr differs".to_owned())
}

fn materialise_edge_cases(root: &Path) {
    std::fs::create_dir_all(root).expect("mkdir");
    for case in EDGE_CASES {
        let dir = root.join(case.dir);
        match &case.layout {
            Layout::File { name, content } => {
                std::fs::create_dir_all(&dir).expect("mkdir");
                std::fs::write(dir.join(name), content).expect("write");
            }
            Layout::Both { upper, lower } => {
                std::fs::create_dir_all(&dir).expect("mkdir");
                std::fs::write(dir.join("SKILL.md"), upper).expect("write");
                std::fs::write(dir.join("skill.md"), lower).expect("write");
            }
            Layout::Empty => std::fs::create_dir_all(&dir).expect("mkdir"),
            Layout::PlainFile { content } => std::fs::write(&dir, content).expect("write"),
            Layout::SkillMdIsDir => std::fs::create_dir_all(dir.join("SKILL.md")).expect("mkdir"),
        }
    }
}

/// Invocations that test the command line rather than a skill: how paths are named and shown,
/// several paths, symlinks, and usage errors.
fn argv_cases(edge_root: &Path) -> Vec<Invocation> {
    let link = edge_root.join("link-to-comment");
    std::os::unix::fs::symlink(edge_root.join("comment"), &link).expect("symlink");
    let at = |id: &str, cwd: &Path, argv: &[&str]| Invocation {
        id: format!("argv:{id}"),
        cwd: cwd.to_path_buf(),
        argv: argv.iter().map(|s| (*s).to_owned()).collect(),
    };
    let inside = edge_root.join("comment");
    let mut cases = vec![
        at(
            "skill-md-file",
            edge_root,
            &["validate", "comment/SKILL.md"],
        ),
        at("dot-slash-trailing", edge_root, &["validate", "./comment/"]),
        at("double-slash", edge_root, &["validate", "comment//"]),
        at("dot-inside", &inside, &["validate", "."]),
        at("skill-md-inside", &inside, &["validate", "SKILL.md"]),
        at(
            "absolute",
            edge_root,
            &["validate", &inside.display().to_string()],
        ),
        at(
            "lowercase-file-arg",
            edge_root,
            &["validate", "lower-file/skill.md"],
        ),
        at(
            "invalid-skill-md-arg",
            edge_root,
            &["validate", "upper/SKILL.md"],
        ),
        at("symlink", edge_root, &["validate", "link-to-comment"]),
        at(
            "read-properties-file",
            edge_root,
            &["read-properties", "comment/SKILL.md"],
        ),
        at("read-properties-dot", &inside, &["read-properties", "."]),
        at(
            "read-properties-plain-file",
            edge_root,
            &["read-properties", "not-a-dir.txt"],
        ),
        at(
            "to-prompt-two",
            edge_root,
            &["to-prompt", "comment", "folded"],
        ),
        at(
            "to-prompt-symlink",
            edge_root,
            &["to-prompt", "link-to-comment"],
        ),
        at(
            "to-prompt-second-fails",
            edge_root,
            &["to-prompt", "comment", "no-frontmatter", "folded"],
        ),
        at(
            "to-prompt-repeated",
            edge_root,
            &["to-prompt", "comment", "comment"],
        ),
        at(
            "validate-missing-path",
            edge_root,
            &["validate", "does-not-exist"],
        ),
        at("validate-no-path", edge_root, &["validate"]),
        at(
            "read-properties-missing-path",
            edge_root,
            &["read-properties", "does-not-exist"],
        ),
        at("to-prompt-no-path", edge_root, &["to-prompt"]),
        at(
            "to-prompt-missing-path",
            edge_root,
            &["to-prompt", "comment", "does-not-exist"],
        ),
        at("validate-dash", edge_root, &["validate", "-"]),
        at(
            "unknown-option",
            edge_root,
            &["validate", "--frobnicate", "comment"],
        ),
    ];
    // `--mode skills-ref` goes after the command for us; the reference has no such flag.
    for case in &mut cases {
        case.argv.retain(|arg| !arg.is_empty());
    }
    cases
}

fn skill_dirs(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if dir.join("SKILL.md").is_file() {
            found.push(dir.clone());
        }
        for entry in std::fs::read_dir(&dir).expect("read corpus").flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
    found.sort();
    found
}

fn run_reference(invocations: &[Invocation]) -> Vec<Outcome> {
    let requests: Vec<Value> = invocations
        .iter()
        .map(|invocation| json!({"argv": invocation.argv, "cwd": invocation.cwd.display().to_string()}))
        .collect();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/driver.py");
    let mut child = Command::new(reference_python())
        .arg(&driver)
        .env("COLUMNS", "80")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the reference driver");
    let input = serde_json::to_vec(&requests).expect("json");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let output = child.wait_with_output().expect("reference driver");
    writer.join().expect("writer").expect("write requests");
    assert!(
        output.status.success(),
        "reference driver failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Vec<Value> = serde_json::from_slice(&output.stdout).expect("driver output");
    assert_eq!(results.len(), invocations.len());
    results
        .into_iter()
        .map(|result| Outcome {
            stdout: result["stdout"].as_str().unwrap_or_default().to_owned(),
            stderr: result["stderr"].as_str().unwrap_or_default().to_owned(),
            exit_code: result["exit_code"].as_i64().unwrap_or(-1),
            exception: result["exception"].as_str().map(str::to_owned),
        })
        .collect()
}

fn run_ours(invocations: &[Invocation]) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let mut outcomes: Vec<Option<Outcome>> = vec![None; invocations.len()];
    let slots: Vec<std::sync::Mutex<&mut Option<Outcome>>> =
        outcomes.iter_mut().map(std::sync::Mutex::new).collect();
    std::thread::scope(|scope| {
        for _ in 0..std::thread::available_parallelism().map_or(2, |n| n.get()) * 2 {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(invocation) = invocations.get(index) else {
                        break;
                    };
                    let outcome = run_one_of_ours(invocation);
                    **slots[index].lock().expect("lock") = Some(outcome);
                }
            });
        }
    });
    drop(slots);
    outcomes
        .into_iter()
        .map(|outcome| outcome.expect("every invocation ran"))
        .collect()
}

fn run_one_of_ours(invocation: &Invocation) -> Outcome {
    let mut argv = invocation.argv.clone();
    // Our CLI takes the mode as an option of each command.
    if !argv.is_empty() {
        argv.insert(1, "--mode=skills-ref".to_owned());
    }
    let output = Command::new(skillpath_bin())
        .args(&argv)
        .current_dir(&invocation.cwd)
        .output()
        .expect("run skillpath");
    Outcome {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        exit_code: i64::from(output.status.code().unwrap_or(-1)),
        exception: None,
    }
}

/// `(case id, command) -> reason`, from the table in `expected-differences.md`.
fn expected_differences() -> BTreeMap<(String, String), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/expected-differences.md");
    let text = std::fs::read_to_string(&path).expect("read expected-differences.md");
    let mut map = BTreeMap::new();
    for line in text.lines().filter(|line| line.starts_with("| `")) {
        let cells: Vec<&str> = line
            .trim_matches('|')
            .split('|')
            .map(|cell| cell.trim().trim_matches('`'))
            .collect();
        if let [case, command, reason, ..] = cells.as_slice() {
            assert!(
                !reason.is_empty(),
                "{case} {command}: every expected difference needs a reason"
            );
            map.insert(
                ((*case).to_owned(), (*command).to_owned()),
                (*reason).to_owned(),
            );
        }
    }
    map
}
