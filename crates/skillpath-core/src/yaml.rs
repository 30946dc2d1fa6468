//! A YAML tree with source ranges, built from the events of `granit-parser`.
//!
//! We build our own small tree instead of deserializing with serde because validation needs
//! more than values: the source range of every key and value (for diagnostics), the style
//! each scalar was written in (plain `1.0` is a number, quoted `"1.0"` a string), and which
//! YAML constructs were used (the reference validator's strictyaml rejects flow collections,
//! anchors, aliases, tags and explicit keys).

use std::collections::HashMap;
use std::ops::Range;

use granit_parser::{Event, Options, Parser, ScalarStyle as GranitStyle, StructureStyle};

/// Upper bound on nodes in one document, counting every alias expansion: a small frontmatter
/// never comes near it, and "billion laughs" documents stop here instead of eating memory.
pub const MAX_NODES: usize = 10_000;

/// A node of the tree with its byte range in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What the node holds.
    pub kind: NodeKind,
    /// Byte range of the node in the file (an empty range for an empty value).
    pub range: Range<usize>,
}

/// The three kinds of YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// A scalar, with the text after YAML escape processing.
    Scalar(Scalar),
    /// A sequence of nodes.
    Sequence(Vec<Node>),
    /// A mapping, in source order.
    Mapping(Vec<Entry>),
}

/// A scalar's text and how it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The value after escape processing; empty for an empty node.
    pub text: String,
    /// Plain, quoted or block.
    pub style: ScalarStyle,
    /// The core-schema tag suffix (`str`, `int`, …) when an explicit `!!tag` was given.
    pub core_tag: Option<String>,
}

/// How a scalar was written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    /// No value at all (`key:`).
    Empty,
    /// Unquoted.
    Plain,
    /// `'single quoted'`.
    SingleQuoted,
    /// `"double quoted"`.
    DoubleQuoted,
    /// `|` block.
    Literal,
    /// `>` block.
    Folded,
}

/// One key and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key node (a scalar in every valid frontmatter).
    pub key: Node,
    /// The value node.
    pub value: Node,
}

/// A YAML construct that some dialects refuse, and where it was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Construct {
    /// `[a, b]` or `{a: b}`.
    FlowCollection,
    /// `&name`.
    Anchor,
    /// `*name`.
    Alias,
    /// `!tag` or `!!tag`.
    Tag,
    /// A tab outside quoted scalars, block scalars and comments: YAML 1.2 reads it as
    /// separating space, PyYAML and ruamel.yaml refuse it.
    Tab,
    /// A NEL, LS or PS inside a block scalar, which ruamel.yaml reads as a line break that
    /// breaks the block's indentation.
    NextLineInBlockScalar,
    /// A NEL, LS or PS at the start of a line, which ruamel.yaml reads as an empty line followed
    /// by content at column 0.
    LineBreakAtLineStart,
    /// A NEL, LS or PS inside a comment with text after it, which ruamel.yaml reads as content
    /// on a new line.
    LineBreakInComment,
}

/// Which YAML a frontmatter is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// YAML 1.2.
    #[default]
    Yaml12,
    /// What strictyaml (on ruamel.yaml) reads, the reference validator's YAML: a block scalar on
    /// the last line ends without a line feed, U+0085 (NEL) in a plain scalar is a line break
    /// that folds to a space, and a byte-order mark inside the document (even before a key) is
    /// content.
    StrictYaml,
}

/// The result of parsing one YAML document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The root node; `None` when the document is empty or only comments.
    pub root: Option<Node>,
    /// Constructs used, in source order, with their ranges.
    pub constructs: Vec<(Construct, Range<usize>)>,
}

/// A YAML document that could not be read, at a byte offset of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// What kind of problem it is.
    pub kind: YamlErrorKind,
    /// The parser's message.
    pub message: String,
    /// Byte offset in the file.
    pub offset: usize,
}

/// The kinds of [`YamlError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// The text is not YAML (or holds more than one document).
    Syntax,
    /// A mapping has the same key twice.
    DuplicateKey,
    /// Aliases expand beyond [`MAX_NODES`].
    TooComplex,
}

impl Node {
    /// The scalar text, if this is a scalar.
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(scalar) => Some(scalar),
            _ => None,
        }
    }

    /// The value of `key` when this is a mapping with a scalar key equal to `key`.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        match &self.kind {
            NodeKind::Mapping(entries) => entries
                .iter()
                .find(|entry| entry.key.as_scalar().is_some_and(|k| k.text == key)),
            _ => None,
        }
    }

    /// A short name of the node's kind for messages ("a string", "a list", "a mapping").
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Scalar(_) => "a string",
            NodeKind::Sequence(_) => "a list",
            NodeKind::Mapping(_) => "a mapping",
        }
    }
}

/// Parses `text`, which starts at byte `base` of the file, into a [`Document`].
///
/// Aliases are expanded (within [`MAX_NODES`]); duplicate keys are an error, as YAML requires.
pub fn parse(text: &str, base: usize, dialect: Dialect) -> Result<Document, YamlError> {
    let mut options = Options::default();
    options.emit_anchor_events = true;
    options.emit_unresolved_aliases = true;
    options.block_scalar_eof_without_line_feed = dialect == Dialect::StrictYaml;
    options.bom_inside_document_as_content = dialect == Dialect::StrictYaml;
    if dialect == Dialect::StrictYaml
        && let Some(offset) = leading_document_end(text)
    {
        return Err(YamlError {
            kind: YamlErrorKind::Syntax,
            message:
                "while parsing a block node\nexpected the node content, but found '<document end>'"
                    .to_owned(),
            offset: base + offset,
        });
    }
    let breaks_as_blanks;
    let text = if dialect == Dialect::StrictYaml && text.contains(UNICODE_LINE_BREAKS) {
        breaks_as_blanks = unicode_breaks_as_blanks(text);
        breaks_as_blanks.as_str()
    } else {
        text
    };
    let mut builder = Builder {
        text,
        base,
        dialect,
        ..Builder::default()
    };
    let mut parser = Parser::new_from_str_with_options(text, options);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|error| YamlError {
            kind: YamlErrorKind::Syntax,
            message: error.info(),
            offset: base + byte_offset(text, error.marker()),
        })?;
        let range = byte_offset(text, &span.start)..byte_offset(text, &span.end);
        builder.event(event, range)?;
    }
    if dialect == Dialect::StrictYaml {
        builder.note_strictyaml_text();
    }
    builder.constructs.sort_by_key(|(_, range)| range.start);
    Ok(Document {
        root: builder.root,
        constructs: builder.constructs,
    })
}

fn byte_offset(text: &str, marker: &granit_parser::Marker) -> usize {
    marker.byte_offset().unwrap_or_else(|| {
        text.char_indices()
            .nth(marker.index())
            .map_or(text.len(), |(offset, _)| offset)
    })
}

/// A collection being built, with its start offset and anchor.
#[derive(Debug)]
enum Open {
    Sequence {
        start: usize,
        anchor: usize,
        items: Vec<Node>,
    },
    Mapping {
        start: usize,
        anchor: usize,
        entries: Vec<Entry>,
        pending_key: Option<Node>,
    },
}

#[derive(Debug, Default)]
struct Builder<'a> {
    text: &'a str,
    base: usize,
    dialect: Dialect,
    /// Ranges (in `text`) of the scalars in source order, and whether each is plain.
    scalar_ranges: Vec<(Range<usize>, bool)>,
    stack: Vec<Open>,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    documents: usize,
    root: Option<Node>,
    constructs: Vec<(Construct, Range<usize>)>,
}

impl Builder<'_> {
    fn error(&self, message: impl Into<String>, offset: usize) -> YamlError {
        YamlError {
            kind: YamlErrorKind::Syntax,
            message: message.into(),
            offset: self.base + offset,
        }
    }

    fn file_range(&self, range: Range<usize>) -> Range<usize> {
        self.base + range.start..self.base + range.end
    }

    fn event(&mut self, event: Event<'_>, range: Range<usize>) -> Result<(), YamlError> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(
                        self.error("frontmatter holds more than one YAML document", range.start)
                    );
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                self.scalar_ranges
                    .push((range.clone(), matches!(style, GranitStyle::Plain)));
                let core_tag = tag.map(|tag| {
                    self.constructs
                        .push((Construct::Tag, self.file_range(range.clone())));
                    tag.core_suffix().map(str::to_owned).unwrap_or_default()
                });
                let style = match style {
                    _ if range.is_empty() && value == "~" => ScalarStyle::Empty,
                    GranitStyle::Plain => ScalarStyle::Plain,
                    GranitStyle::SingleQuoted => ScalarStyle::SingleQuoted,
                    GranitStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
                    GranitStyle::Literal => ScalarStyle::Literal,
                    GranitStyle::Folded => ScalarStyle::Folded,
                };
                let mut text = if style == ScalarStyle::Empty {
                    String::new()
                } else {
                    value.into_owned()
                };
                if self.dialect == Dialect::StrictYaml {
                    match style {
                        // Only a line break written as such folds; one from an escape (`\N`, `\L`) is content.
                        ScalarStyle::Plain
                        | ScalarStyle::SingleQuoted
                        | ScalarStyle::DoubleQuoted
                            if self.text[range.clone()]
                                .contains(['\u{85}', '\u{2028}', '\u{2029}']) =>
                        {
                            text = fold_unicode_line_breaks(&text, style == ScalarStyle::Plain);
                        }
                        ScalarStyle::Literal | ScalarStyle::Folded
                            if text.contains(UNICODE_LINE_BREAKS) =>
                        {
                            self.constructs.push((
                                Construct::NextLineInBlockScalar,
                                self.file_range(range.clone()),
                            ));
                        }
                        _ => {}
                    }
                    if style == ScalarStyle::Plain && self.text[..range.start].ends_with('\u{feff}')
                    {
                        text.insert(0, '\u{feff}');
                    }
                }
                let core_tag = core_tag.filter(|suffix| !suffix.is_empty());
                let node = Node {
                    kind: NodeKind::Scalar(Scalar {
                        text,
                        style,
                        core_tag,
                    }),
                    range: self.file_range(range),
                };
                self.push(node, anchor)?;
            }
            Event::SequenceStart(style, anchor, tag) => {
                self.note_collection(style, tag.is_some(), &range);
                self.stack.push(Open::Sequence {
                    start: range.start,
                    anchor,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(style, anchor, tag) => {
                self.note_collection(style, tag.is_some(), &range);
                self.stack.push(Open::Mapping {
                    start: range.start,
                    anchor,
                    entries: Vec::new(),
                    pending_key: None,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let node_end = range.start;
                let (node, anchor) = match self.stack.pop() {
                    Some(Open::Sequence {
                        start,
                        anchor,
                        items,
                    }) => (
                        Node {
                            kind: NodeKind::Sequence(items),
                            range: self.file_range(start..node_end.max(start)),
                        },
                        anchor,
                    ),
                    Some(Open::Mapping {
                        start,
                        anchor,
                        entries,
                        ..
                    }) => (
                        Node {
                            kind: NodeKind::Mapping(entries),
                            range: self.file_range(start..node_end.max(start)),
                        },
                        anchor,
                    ),
                    None => return Err(self.error("unbalanced YAML collection", range.start)),
                };
                self.push_built(node, anchor)?;
            }
            Event::Anchor(..) => self
                .constructs
                .push((Construct::Anchor, self.file_range(range))),
            Event::Alias(id) => {
                self.constructs
                    .push((Construct::Alias, self.file_range(range.clone())));
                let target = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| self.error("alias to an unknown anchor", range.start))?;
                let size = count_nodes(&target);
                self.count(size, range.start)?;
                self.attach(Node {
                    range: self.file_range(range),
                    ..target
                })?;
            }
            Event::UnresolvedAlias(name) => {
                return Err(self.error(format!("found undefined alias '{name}'"), range.start));
            }
            _ => {}
        }
        Ok(())
    }

    /// Records what ruamel.yaml refuses in the text around the tokens: a tab outside quoted
    /// scalars, block scalars and comments, and a Unicode line break (NEL, LS, PS) inside a
    /// comment with content after it, which ruamel reads as a new line. One pass over the
    /// text; scalar ranges arrive in source order.
    fn note_strictyaml_text(&mut self) {
        let text = self.text;
        let mut scalars = self.scalar_ranges.iter().peekable();
        let mut previous = '\n';
        let mut in_comment = false;
        // Whether everything on the line so far is blank.
        let mut line_blank = true;
        let mut found = Vec::new();
        for (at, c) in text.char_indices() {
            while scalars.next_if(|(range, _)| range.end <= at).is_some() {}
            let scalar = scalars.peek().filter(|(range, _)| range.contains(&at));
            // Tabs and `#` are content inside quoted and block scalars.
            let in_scalar = scalar.is_some_and(|(_, plain)| !plain);
            let continues_scalar = scalar.is_some_and(|(range, _)| range.start < at);
            if c == '\n' {
                in_comment = false;
            } else if UNICODE_LINE_BREAKS.contains(&c)
                && !continues_scalar
                && !in_comment
                && line_blank
            {
                found.push((Construct::LineBreakAtLineStart, at..at + c.len_utf8()));
            } else if in_comment {
                if matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}') {
                    let after = at + c.len_utf8();
                    let line_end = text[after..].find('\n').map_or(text.len(), |i| after + i);
                    if !text[after..line_end].trim().is_empty() {
                        found.push((Construct::LineBreakInComment, at..after));
                        in_comment = false;
                    }
                }
            } else if c == '#' && !in_scalar && matches!(previous, ' ' | '\t' | '\n') {
                in_comment = true;
            } else if c == '\t' && !in_scalar {
                found.push((Construct::Tab, at..at + 1));
            }
            line_blank = c == '\n' || (line_blank && matches!(c, ' ' | '\t'));
            previous = c;
        }
        for (construct, range) in found {
            self.constructs.push((construct, self.file_range(range)));
        }
    }

    fn note_collection(&mut self, style: StructureStyle, tagged: bool, range: &Range<usize>) {
        if style == StructureStyle::Flow {
            self.constructs
                .push((Construct::FlowCollection, self.file_range(range.clone())));
        }
        if tagged {
            self.constructs
                .push((Construct::Tag, self.file_range(range.clone())));
        }
    }

    fn count(&mut self, nodes: usize, offset: usize) -> Result<(), YamlError> {
        self.nodes += nodes;
        if self.nodes > MAX_NODES {
            return Err(YamlError {
                kind: YamlErrorKind::TooComplex,
                ..self.error(
                    format!("frontmatter expands to more than {MAX_NODES} YAML nodes"),
                    offset,
                )
            });
        }
        Ok(())
    }

    fn push(&mut self, node: Node, anchor: usize) -> Result<(), YamlError> {
        self.count(1, node.range.start - self.base)?;
        self.push_built(node, anchor)
    }

    fn push_built(&mut self, node: Node, anchor: usize) -> Result<(), YamlError> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        self.attach(node)
    }

    fn attach(&mut self, node: Node) -> Result<(), YamlError> {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Open::Sequence { items, .. }) => items.push(node),
            Some(Open::Mapping {
                entries,
                pending_key,
                ..
            }) => match pending_key.take() {
                None => *pending_key = Some(node),
                Some(key) => {
                    if let Some(text) = key.as_scalar().map(|scalar| scalar.text.as_str())
                        && entries
                            .iter()
                            .any(|entry| entry.key.as_scalar().is_some_and(|k| k.text == text))
                    {
                        let message = format!("duplicate key '{text}'");
                        return Err(YamlError {
                            kind: YamlErrorKind::DuplicateKey,
                            message,
                            offset: key.range.start,
                        });
                    }
                    entries.push(Entry { key, value: node });
                }
            },
        }
        Ok(())
    }
}

/// The offset of a document end marker `...` that comes before any content. YAML 1.2 allows
/// it; ruamel.yaml wants a document first.
fn leading_document_end(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim();
        if content == "..." || content.starts_with("... ") || content.starts_with("...\t") {
            return Some(offset + line.find("...").unwrap_or(0));
        }
        if !content.is_empty() && !content.starts_with('#') {
            return None;
        }
        offset += line.len();
    }
    None
}

/// The Unicode line breaks that ruamel.yaml honours and YAML 1.2 reads as content.
const UNICODE_LINE_BREAKS: [char; 3] = ['\u{85}', '\u{2028}', '\u{2029}'];

/// ruamel.yaml reads a NEL, LS or PS between a `:` and its value, or at the end of a line, as
/// a blank. Each such one becomes spaces of its byte length, so every offset stays true to the
/// file.
fn unicode_breaks_as_blanks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        let after_colon = || out.trim_end_matches([' ', '\t']).ends_with(':');
        let at_line_end = || {
            let rest = text[at + c.len_utf8()..].trim_start_matches([' ', '\t', '\r']);
            rest.is_empty() || rest.starts_with('\n')
        };
        if UNICODE_LINE_BREAKS.contains(&c) && (after_colon() || at_line_end()) {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// ruamel.yaml treats NEL (U+0085), LS (U+2028) and PS (U+2029) written in a flow scalar as
/// line breaks: the blanks around them go, a NEL folds to one space, LS and PS stay. A plain
/// scalar has no blanks at its ends.
fn fold_unicode_line_breaks(text: &str, plain: bool) -> String {
    const BREAKS: [char; 3] = UNICODE_LINE_BREAKS;
    if !text.contains(BREAKS) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut after_break = false;
    for piece in text.split_inclusive(BREAKS) {
        let piece = if after_break {
            piece.trim_start_matches([' ', '\t'])
        } else {
            piece
        };
        match piece.strip_suffix(BREAKS) {
            Some(content) => {
                let line_break = piece[content.len()..].chars().next().unwrap_or(' ');
                out.push_str(content.trim_end_matches([' ', '\t']));
                out.push(if line_break == '\u{85}' {
                    ' '
                } else {
                    line_break
                });
                after_break = true;
            }
            None => {
                out.push_str(piece);
                after_break = false;
            }
        }
    }
    if plain {
        out.trim_matches(' ').to_owned()
    } else {
        out
    }
}

fn count_nodes(node: &Node) -> usize {
    1 + match &node.kind {
        NodeKind::Scalar(_) => 0,
        NodeKind::Sequence(items) => items.iter().map(count_nodes).sum(),
        NodeKind::Mapping(entries) => entries
            .iter()
            .map(|e| count_nodes(&e.key) + count_nodes(&e.value))
            .sum(),
    }
}

/// The node as JSON under the YAML 1.2 core schema: plain `true`, `1.5`, `null` become typed
/// values, quoted and block scalars stay strings. This is the "raw frontmatter as JSON" that the
/// MCP Skills extension returns.
pub fn to_json(node: &Node) -> serde_json::Value {
    use serde_json::Value;
    match &node.kind {
        NodeKind::Scalar(scalar) => scalar_to_json(scalar),
        NodeKind::Sequence(items) => Value::Array(items.iter().map(to_json).collect()),
        NodeKind::Mapping(entries) => Value::Object(
            entries
                .iter()
                .map(|entry| {
                    let key = match &entry.key.kind {
                        NodeKind::Scalar(scalar) => scalar.text.clone(),
                        _ => to_json(&entry.key).to_string(),
                    };
                    (key, to_json(&entry.value))
                })
                .collect(),
        ),
    }
}

fn scalar_to_json(scalar: &Scalar) -> serde_json::Value {
    use serde_json::Value;
    let text = scalar.text.as_str();
    match (scalar.style, scalar.core_tag.as_deref()) {
        (_, Some("str")) => Value::String(text.to_owned()),
        (ScalarStyle::Empty, _) => Value::Null,
        (ScalarStyle::Plain, _) | (_, Some("null" | "bool" | "int" | "float")) => {
            resolve_plain(text)
        }
        _ => Value::String(text.to_owned()),
    }
}

/// YAML 1.2 core schema resolution of a plain scalar.
fn resolve_plain(text: &str) -> serde_json::Value {
    use serde_json::Value;
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits(unsigned, 10) {
        if let Ok(n) = text.parse::<i64>() {
            return Value::from(n);
        }
        if let Ok(n) = text.trim_start_matches('+').parse::<u64>() {
            return Value::from(n);
        }
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8)] {
        if let Some(number) = text.strip_prefix(prefix).filter(|s| digits(s, radix))
            && let Ok(n) = i64::from_str_radix(number, radix)
        {
            return Value::from(n);
        }
    }
    if is_core_float(unsigned)
        && let Ok(f) = text.parse::<f64>()
        && let Some(number) = serde_json::Number::from_f64(f)
    {
        return Value::Number(number);
    }
    Value::String(text.to_owned())
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` without the sign.
fn is_core_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let all_digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            all_digits(int)
                && all_digits(frac)
                && !(int.is_empty() && frac.is_empty())
                && (!int.is_empty() || !frac.is_empty())
        }
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        parse(text, 0, Dialect::Yaml12).expect("valid YAML")
    }

    #[test]
    fn keeps_ranges_styles_and_empty_values() {
        let document = doc("name: x\ndesc:\nq: 'a'\n");
        let root = document.root.expect("root");
        let name = root.get("name").expect("name");
        assert_eq!(name.value.range, 6..7);
        let desc = root.get("desc").expect("desc");
        assert_eq!(
            desc.value.as_scalar().map(|s| (s.text.as_str(), s.style)),
            Some(("", ScalarStyle::Empty))
        );
        assert_eq!(
            root.get("q")
                .and_then(|e| e.value.as_scalar())
                .map(|s| s.style),
            Some(ScalarStyle::SingleQuoted)
        );
    }

    #[test]
    fn records_constructs_strictyaml_refuses() {
        let document = parse(
            "a: [x]\nb: &x y\nc: *x\nd: !!str 1\ne:\tf\n",
            0,
            Dialect::StrictYaml,
        )
        .expect("valid YAML");
        let kinds: Vec<Construct> = document.constructs.iter().map(|(kind, _)| *kind).collect();
        assert_eq!(
            kinds,
            [
                Construct::FlowCollection,
                Construct::Anchor,
                Construct::Alias,
                Construct::Tag,
                Construct::Tab
            ]
        );
        let tabs = |text: &str| {
            parse(text, 0, Dialect::StrictYaml)
                .expect("valid YAML")
                .constructs
                .iter()
                .filter(|(kind, _)| *kind == Construct::Tab)
                .count()
        };
        assert_eq!(tabs("\ta: b\n"), 1);
        assert_eq!(tabs("a: b\tc\n"), 1);
        assert_eq!(tabs("a: 'b\tc'\nd: |\n  e\tf\ng: h # i\tj\n"), 0);
    }

    #[test]
    fn strictyaml_dialect_reads_nel_and_bom_like_ruamel() {
        let document =
            parse("\u{feff}name: a\nd: x\u{85}y\n", 0, Dialect::StrictYaml).expect("parses");
        let root = document.root.expect("root");
        assert!(root.get("\u{feff}name").is_some());
        assert_eq!(
            root.get("d")
                .and_then(|e| e.value.as_scalar())
                .map(|s| s.text.as_str()),
            Some("x y")
        );
        let document =
            parse("name: \u{feff}x\n", 0, Dialect::StrictYaml).expect("a BOM inside is content");
        assert_eq!(
            document
                .root
                .expect("root")
                .get("name")
                .and_then(|e| e.value.as_scalar())
                .map(|s| s.text.as_str()),
            Some("\u{feff}x")
        );
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let error = parse("name: a\nname: b\n", 10, Dialect::Yaml12).expect_err("duplicate");
        assert_eq!(error.offset, 18);
        assert!(error.message.contains("duplicate key 'name'"));
    }

    #[test]
    fn alias_bombs_stop_at_the_node_budget() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..8 {
            let prev = level - 1;
            text.push_str(&format!("a{level}: &a{level} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
        }
        let error = parse(&text, 0, Dialect::Yaml12).expect_err("bomb");
        assert!(error.message.contains("more than"));
    }

    #[test]
    fn core_schema_types_plain_scalars_only() {
        let document = doc(
            "a: 1.0\nb: '1.0'\nc: true\nd: 0x1F\ne: 1e3\nf: ~\ng:\nh: 2024-01-15\ni: !!str 5\nj: .5\nk: 1.\n",
        );
        let json = to_json(&document.root.expect("root"));
        assert_eq!(
            json,
            serde_json::json!({"a": 1.0, "b": "1.0", "c": true, "d": 31, "e": 1000.0, "f": null, "g": null, "h": "2024-01-15", "i": "5", "j": 0.5, "k": 1.0})
        );
    }
}
