//! What the workspace's tests share, written once instead of copied into each test file:
//! running a command to its end ([`RunExt`] on [`std::process::Command`]), what it did ([`Run`]),
//! and its output read as JSON ([`json`]). A dev-dependency only; never published.
//!
//! The commands are built with `std`'s own [`Command`] methods (folder, environment, extra
//! arguments), so each test says in one line how it runs the binary it tests.

use std::process::{Command, Output};

use serde_json::Value;

/// What one run of a command did: its exit code and what it printed (read as UTF-8, any bytes
/// that are not replaced, so that a hostile input's echo is shown rather than a second panic).
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

impl Run {
    /// What `output` tells. A process ended by a signal panics here, with its stderr: no test
    /// expects one, and an exit code cannot stand for it.
    pub fn of(output: Output) -> Run {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let Some(code) = output.status.code() else {
            panic!("ended by a signal: {stderr}")
        };
        Run {
            code,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr,
        }
    }

    /// `(code, stdout, stderr)`, for a test that names them itself.
    pub fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }

    /// Asserts the run ended with `code` and did not panic.
    pub fn exited(&self, code: i32) -> &Run {
        assert_no_panic(Some(self.code), &self.stderr);
        assert_eq!(self.code, code, "{self:#?}");
        self
    }
}

/// Asserts that a process ended by itself (`code`, not a signal) and did not panic, which
/// `stderr` would say.
pub fn assert_no_panic(code: Option<i32>, stderr: &str) {
    assert!(!stderr.contains("panicked at"), "a panic: {stderr}");
    assert_ne!(code, Some(101), "exit code 101 (a panic): {stderr}");
    assert!(code.is_some(), "ended by a signal: {stderr}");
}

/// `text` (a command's stdout) as JSON; a test fails with the text when it is not.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("{error}: {text}"))
}

/// Running a [`Command`] to its end, the ways the tests read it.
pub trait RunExt {
    /// Runs it: what it did.
    fn run(&mut self) -> Run;
    /// Runs it and asserts it succeeded: its stdout.
    fn ok_stdout(&mut self) -> String;
    /// Runs it and asserts it succeeded: its stdout as JSON.
    fn ok_json(&mut self) -> Value;
}

impl RunExt for Command {
    fn run(&mut self) -> Run {
        Run::of(started(self))
    }

    fn ok_stdout(&mut self) -> String {
        let run = self.run();
        assert!(
            run.code == 0,
            "{} failed ({}): {}",
            line(self),
            run.code,
            run.stderr
        );
        run.stdout
    }

    fn ok_json(&mut self) -> Value {
        json(&self.ok_stdout())
    }
}

/// The output of `command`, which must start.
fn started(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", line(command)))
}

/// `command`'s program and arguments, as a shell would show them (for failure messages).
fn line(command: &Command) -> String {
    let mut line = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        line.push(' ');
        line.push_str(&arg.to_string_lossy());
    }
    line
}
