//! Rendering with arbitrary arguments: the input is a `SKILL.md`, a NUL byte, then JSON
//! arguments; the skill's one template (`template.md`) is the `SKILL.md` text itself, so
//! template syntax is fuzzed too. Any input renders or gives argument problems, never a panic.
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::golden_path::render;
use skillpath_core::{Mode, skill_md};

fuzz_target!(|data: &[u8]| {
    let Some(split) = data.iter().position(|&b| b == 0) else {
        return;
    };
    let (text, arguments) = (&data[..split], &data[split + 1..]);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(serde_json::Value::Object(arguments)) = serde_json::from_slice(arguments) else {
        return;
    };
    let skill = skill_md::parse("fuzz/SKILL.md".into(), text.to_owned(), Mode::Lenient);
    let (golden, _) = GoldenSkill::read(&skill);
    let mut files: HashMap<&str, &[u8]> = HashMap::new();
    files.insert("template.md", text.as_bytes());
    files.insert("templates/template.md", text.as_bytes());
    let _ = render::render(&skill, &golden, &files, &arguments);
});
