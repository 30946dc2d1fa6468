//! The structured body of a Golden Path skill: title, description paragraph, `##` sections,
//! `### Phase N: …` phases inside Execution Steps, and template references inside phases.
//!
//! Headings come from a real markdown parser (pulldown-cmark), so `#` lines inside fenced code
//! are not headings; template references are bold-label lines outside code.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag};

/// A value and where it is written (byte range in the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The text.
    pub value: String,
    /// Its byte range in the file.
    pub range: Range<usize>,
}

/// The kinds of `##` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SectionKind {
    /// `## Prerequisites`: a checklist.
    Prerequisites,
    /// `## Execution Steps`: the phases.
    ExecutionSteps,
    /// `## Success Criteria`: a checklist.
    SuccessCriteria,
    /// Any other section.
    Free,
}

impl SectionKind {
    /// The kind a heading names (case-insensitive), `Free` for any other heading.
    pub fn of_heading(heading: &str) -> SectionKind {
        match heading.trim().to_ascii_lowercase().as_str() {
            "prerequisites" => SectionKind::Prerequisites,
            "execution steps" => SectionKind::ExecutionSteps,
            "success criteria" => SectionKind::SuccessCriteria,
            _ => SectionKind::Free,
        }
    }

    /// The heading written when none is given.
    pub fn default_heading(self) -> &'static str {
        match self {
            SectionKind::Prerequisites => "Prerequisites",
            SectionKind::ExecutionSteps => "Execution Steps",
            SectionKind::SuccessCriteria => "Success Criteria",
            SectionKind::Free => "Notes",
        }
    }
}

/// A `##` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// What kind of section the heading makes it.
    pub kind: SectionKind,
    /// The heading text.
    pub heading: Located,
    /// Everything after the heading line up to the next `##` (or the end), including phases.
    pub content: Range<usize>,
    /// For Execution Steps: the text before the first phase.
    pub intro: Range<usize>,
    /// For Execution Steps: the phases, in order.
    pub phases: Vec<Phase>,
}

/// A `### Phase N: name` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// The number written in the heading.
    pub number: u64,
    /// The name after `Phase N:`.
    pub name: Located,
    /// The heading line's range.
    pub heading_range: Range<usize>,
    /// Everything after the heading line up to the next `###`/`##` heading.
    pub content: Range<usize>,
    /// Template references, in order.
    pub templates: Vec<TemplateRef>,
}

/// A group of bold-label lines: `**Template:**`, `**Target:**`, optional `**Condition:**`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateRef {
    /// The template file, relative to the skill folder.
    pub template: Located,
    /// Where the rendered file goes, with placeholders.
    pub target: Option<Located>,
    /// When the reference applies.
    pub condition: Option<Located>,
    /// The lines of the group, including the last line break.
    pub lines: Range<usize>,
}

/// A bold-label line found outside a reference group (a `**Target:**` with no `**Template:**`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrayLabel {
    /// The label (`Target`, `Condition`).
    pub label: &'static str,
    /// The line.
    pub range: Range<usize>,
}

/// The structure found in a body. Every range is a byte range of the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Body {
    /// The `#` heading before the first section.
    pub title: Option<Located>,
    /// The text between the title and the first section, when not blank.
    pub description: Option<Range<usize>>,
    /// The `##` sections, in order.
    pub sections: Vec<Section>,
    /// `### Phase N:` headings outside Execution Steps.
    pub stray_phases: Vec<Range<usize>>,
    /// Labels of template references that are not part of a group.
    pub stray_labels: Vec<StrayLabel>,
    /// Byte ranges of fenced and indented code blocks.
    pub code_blocks: Vec<Range<usize>>,
}

impl Body {
    /// Whether the body has Golden Path structure: an `## Execution Steps` section. (Phase
    /// headings alone are common in plain skills and do not make one.)
    pub fn is_structured(&self) -> bool {
        self.sections
            .iter()
            .any(|s| s.kind == SectionKind::ExecutionSteps)
    }

    /// Every template reference of every phase, in order.
    pub fn template_refs(&self) -> impl Iterator<Item = &TemplateRef> {
        self.sections
            .iter()
            .flat_map(|s| &s.phases)
            .flat_map(|p| &p.templates)
    }
}

struct Heading {
    level: HeadingLevel,
    text: String,
    range: Range<usize>,
}

/// Parses the body `text`, which starts at byte `base` of the file.
pub fn parse_body(text: &str, base: usize) -> Body {
    let mut headings = Vec::new();
    let mut code_blocks = Vec::new();
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                headings.push(Heading {
                    level,
                    text: heading_source_text(&text[range.clone()]),
                    range,
                });
            }
            Event::Start(Tag::CodeBlock(_)) => code_blocks.push(range),
            _ => {}
        }
    }
    let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    let file = |range: Range<usize>| base + range.start..base + range.end;
    let located = |value: &str, range: Range<usize>| Located {
        value: value.trim().to_owned(),
        range: file(range),
    };

    let mut body = Body {
        code_blocks: code_blocks.iter().cloned().map(file).collect(),
        ..Body::default()
    };
    let first_section = headings.iter().position(|h| h.level == HeadingLevel::H2);
    let title = headings[..first_section.unwrap_or(headings.len())]
        .iter()
        .find(|h| h.level == HeadingLevel::H1);
    if let Some(title) = title {
        body.title = Some(located(&title.text, title.range.clone()));
        let start = line_end(title.range.start).max(title.range.end);
        let end = first_section.map_or(text.len(), |i| headings[i].range.start);
        if start < end && !text[start..end].trim().is_empty() {
            body.description = Some(file(trim_range(text, start..end)));
        }
    }

    let sections: Vec<&Heading> = headings
        .iter()
        .filter(|h| h.level == HeadingLevel::H2)
        .collect();
    for (index, heading) in sections.iter().enumerate() {
        let content_start = line_end(heading.range.start)
            .max(heading.range.end)
            .min(text.len());
        let content_end = sections
            .get(index + 1)
            .map_or(text.len(), |next| next.range.start);
        let kind = SectionKind::of_heading(&heading.text);
        let mut section = Section {
            kind,
            heading: located(&heading.text, heading.range.clone()),
            content: file(content_start..content_end),
            intro: file(content_start..content_end),
            phases: Vec::new(),
        };
        let inner: Vec<&Heading> = headings
            .iter()
            .filter(|h| {
                h.level == HeadingLevel::H3
                    && h.range.start >= content_start
                    && h.range.start < content_end
            })
            .collect();
        for (phase_index, phase_heading) in inner.iter().enumerate() {
            let Some((number, name)) = phase_title(&phase_heading.text) else {
                continue;
            };
            if kind != SectionKind::ExecutionSteps {
                body.stray_phases.push(file(phase_heading.range.clone()));
                continue;
            }
            let start = line_end(phase_heading.range.start)
                .max(phase_heading.range.end)
                .min(text.len());
            let end = inner
                .get(phase_index + 1)
                .map_or(content_end, |next| next.range.start);
            if section.phases.is_empty() {
                section.intro = file(content_start..phase_heading.range.start);
            }
            let (templates, stray) = template_refs(text, start..end, &code_blocks, base);
            body.stray_labels.extend(stray);
            section.phases.push(Phase {
                number,
                name: located(name, phase_heading.range.clone()),
                heading_range: file(phase_heading.range.clone()),
                content: file(start..end),
                templates,
            });
        }
        body.sections.push(section);
    }
    // Phase headings before the first section, or at other levels than `###`, are stray too.
    for heading in &headings {
        let inside = body
            .sections
            .iter()
            .any(|s| s.content.contains(&(base + heading.range.start)));
        if heading.level == HeadingLevel::H3 && !inside && phase_title(&heading.text).is_some() {
            body.stray_phases.push(file(heading.range.clone()));
        }
    }
    body.stray_phases.sort_by_key(|range| range.start);
    body
}

/// A heading's text as written (markdown kept): an ATX heading without its `#` marks and closing
/// sequence, a setext heading without its underline.
pub(crate) fn heading_source_text(source: &str) -> String {
    let source = source.trim_end();
    let trimmed = source.trim_start();
    if trimmed.starts_with('#') {
        let content = trimmed.trim_start_matches('#');
        let content = content.trim();
        // A closing sequence is `#`s preceded by a space (or the whole content).
        let without_closing = content.trim_end_matches('#');
        if without_closing.is_empty() || without_closing.ends_with([' ', '\t']) {
            without_closing.trim().to_owned()
        } else {
            content.to_owned()
        }
    } else {
        let mut lines: Vec<&str> = source.lines().collect();
        lines.pop();
        lines
            .iter()
            .map(|line| line.trim())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `Phase 2: Create cache service` → `(2, "Create cache service")`.
pub fn phase_title(heading: &str) -> Option<(u64, &str)> {
    let rest = heading.trim().strip_prefix("Phase")?;
    let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
    let (number, name) = rest.split_once(':')?;
    let number = number.trim().parse().ok()?;
    let name = name.trim();
    (!name.is_empty()).then_some((number, name))
}

fn trim_range(text: &str, range: Range<usize>) -> Range<usize> {
    let slice = &text[range.clone()];
    let start = range.start + (slice.len() - slice.trim_start().len());
    let end = range.end - (slice.len() - slice.trim_end().len());
    start..end.max(start)
}

/// The labels of a template reference line.
const LABELS: [&str; 3] = ["Template", "Target", "Condition"];

/// `**Target:** \`src/x.cs\`` → `("Target", "src/x.cs", range of the value)`.
fn label_line(line: &str) -> Option<(&'static str, &str, Range<usize>)> {
    let trimmed = line.trim_end_matches(['\n', '\r']).trim_end();
    let indent = trimmed.len() - trimmed.trim_start().len();
    let rest = trimmed.trim_start().strip_prefix("**")?;
    let label = LABELS.into_iter().find(|label| rest.starts_with(label))?;
    let rest = rest[label.len()..].strip_prefix(":**")?;
    let value_start = trimmed.len() - rest.trim_start().len();
    let value = rest.trim();
    let (value, value_start) = match value.strip_prefix('`').and_then(|v| v.strip_suffix('`')) {
        Some(inner) => (inner, value_start + 1),
        None => (value, value_start),
    };
    let _ = indent;
    Some((label, value, value_start..value_start + value.len()))
}

fn template_refs(
    text: &str,
    range: Range<usize>,
    code_blocks: &[Range<usize>],
    base: usize,
) -> (Vec<TemplateRef>, Vec<StrayLabel>) {
    let mut refs: Vec<TemplateRef> = Vec::new();
    let mut stray = Vec::new();
    let mut open: Option<TemplateRef> = None;
    let mut at = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        let line_range = at..at + line.len();
        at += line.len();
        let in_code = code_blocks
            .iter()
            .any(|block| block.contains(&line_range.start));
        let parsed = if in_code { None } else { label_line(line) };
        let located = |value: &str, value_range: &Range<usize>| Located {
            value: value.to_owned(),
            range: base + line_range.start + value_range.start
                ..base + line_range.start + value_range.end,
        };
        match (parsed, open.as_mut()) {
            (Some(("Template", value, value_range)), _) => {
                refs.extend(open.take());
                open = Some(TemplateRef {
                    template: located(value, &value_range),
                    target: None,
                    condition: None,
                    lines: base + line_range.start..base + line_range.end,
                });
            }
            (Some(("Target", value, value_range)), Some(group)) if group.target.is_none() => {
                group.target = Some(located(value, &value_range));
                group.lines.end = base + line_range.end;
            }
            (Some(("Condition", value, value_range)), Some(group)) if group.condition.is_none() => {
                group.condition = Some(located(value, &value_range));
                group.lines.end = base + line_range.end;
            }
            (Some((label, _, _)), _) => {
                refs.extend(open.take());
                stray.push(StrayLabel {
                    label,
                    range: base + line_range.start..base + line_range.end,
                });
            }
            (None, _) => refs.extend(open.take()),
        }
    }
    refs.extend(open.take());
    (refs, stray)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "# Add Caching\n\nAdds a cache.\n\n## Prerequisites\n\n- [ ] Service builds\n\n## Execution Steps\n\nIntro.\n\n### Phase 1: Install packages\n\nAdd packages.\n\n### Phase 2: Create cache service\n\n**Template:** `CacheService.cs`\n**Target:** `src/{ServiceName}/CacheService.cs`\n**Condition:** `CacheProvider=redis`\n\nCreate it.\n\n```md\n## Not a section\n**Template:** `Nope.cs`\n```\n\n## Success Criteria\n\n- [ ] Builds\n";

    #[test]
    fn parses_the_seed_structure() {
        let body = parse_body(SEED, 100);
        assert_eq!(
            body.title.as_ref().map(|t| t.value.as_str()),
            Some("Add Caching")
        );
        let description = body.description.clone().expect("description");
        assert_eq!(
            &SEED[description.start - 100..description.end - 100],
            "Adds a cache."
        );
        let kinds: Vec<SectionKind> = body.sections.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                SectionKind::Prerequisites,
                SectionKind::ExecutionSteps,
                SectionKind::SuccessCriteria
            ]
        );
        let steps = &body.sections[1];
        assert_eq!(
            &SEED[steps.intro.start - 100..steps.intro.end - 100],
            "\nIntro.\n\n"
        );
        let phases: Vec<(u64, &str)> = steps
            .phases
            .iter()
            .map(|p| (p.number, p.name.value.as_str()))
            .collect();
        assert_eq!(
            phases,
            [(1, "Install packages"), (2, "Create cache service")]
        );
        let refs: Vec<&TemplateRef> = body.template_refs().collect();
        assert_eq!(
            refs.len(),
            1,
            "the reference inside the code block is not one"
        );
        assert_eq!(refs[0].template.value, "CacheService.cs");
        assert_eq!(
            refs[0].target.as_ref().map(|t| t.value.as_str()),
            Some("src/{ServiceName}/CacheService.cs")
        );
        assert_eq!(
            refs[0].condition.as_ref().map(|c| c.value.as_str()),
            Some("CacheProvider=redis")
        );
        let value = &refs[0].template.range;
        assert_eq!(&SEED[value.start - 100..value.end - 100], "CacheService.cs");
        assert!(body.stray_phases.is_empty());
    }

    #[test]
    fn phases_outside_execution_steps_are_stray() {
        let body = parse_body(
            "# T\n\n### Phase 1: early\n\n## Notes\n\n### Phase 2: late\n",
            0,
        );
        assert_eq!(body.stray_phases.len(), 2);
        assert!(!body.is_structured());
    }

    #[test]
    fn labels_without_a_template_line_are_stray() {
        let body = parse_body(
            "## Execution Steps\n\n### Phase 1: x\n\n**Target:** `a`\n",
            0,
        );
        assert_eq!(body.stray_labels.len(), 1);
        assert_eq!(body.stray_labels[0].label, "Target");
    }

    #[test]
    fn heading_text_is_the_source() {
        assert_eq!(
            heading_source_text("# Use `foo` *now*\n"),
            "Use `foo` *now*"
        );
        assert_eq!(heading_source_text("## Closing ##\n"), "Closing");
        assert_eq!(heading_source_text("## C# and F#\n"), "C# and F#");
        assert_eq!(heading_source_text("Setext title\n===\n"), "Setext title");
    }

    #[test]
    fn phase_titles() {
        assert_eq!(
            phase_title("Phase 3: Register in DI"),
            Some((3, "Register in DI"))
        );
        assert_eq!(phase_title("Phase x: y"), None);
        assert_eq!(phase_title("Phases 1: y"), None);
        assert_eq!(phase_title("Phase 1:"), None);
    }
}
