//! `/`: every skill and package, searched as you type with the store's ranking
//! (`search_skills`'), filtered, counted and paged. Listing reads the server's in-memory
//! catalog; only a search asks the store.

use std::collections::BTreeSet;

use askama::Template;
use axum::Extension;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use skillpath_app::{Kind, Operation, namespace_of_key};
use skillpath_server::catalog::CatalogSkill;

use super::common::{Shell, Studio, html, html_status};
use crate::encode::{encode_path, encode_query, escape_html};
use crate::visitor::Visitor;

/// Skills on one page of the catalog.
pub(crate) const PAGE_SIZE: usize = 50;
/// The most search hits a search shows (the best first).
pub(crate) const MAX_HITS: usize = 200;

/// The catalog's query: every field is optional, so any view has a URL to share.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CatalogQuery {
    /// Words to search for.
    #[serde(default)]
    q: String,
    /// `skill` (every skill), `golden` (Golden Path skills), `plain`, or `package`.
    #[serde(default)]
    kind: String,
    /// Only the members of this package.
    #[serde(default)]
    package: String,
    /// `findings` or `clean`.
    #[serde(default)]
    audit: String,
    /// `valid` or `invalid` (by the specification's rules hosts check).
    #[serde(default)]
    validity: String,
    /// `1`: only items with drafts the visitor may see.
    #[serde(default)]
    drafts: String,
    /// `@name`: only that namespace's items; `starred`: only the visitor's starred items.
    #[serde(default)]
    namespace: String,
    /// 1-based page.
    page: Option<usize>,
    /// `1`: only the results, for search as you type.
    #[serde(default)]
    fragment: String,
}

/// One row of the catalog.
pub(crate) struct Row {
    name: String,
    href: String,
    description: String,
    /// `Golden Path`, `skill` or `package`.
    kind: &'static str,
    package: Option<String>,
    revision: u64,
    findings: usize,
    valid: bool,
    drafted: bool,
    /// What the search found it by, as HTML with the matches marked.
    snippet: Option<String>,
}

#[derive(Template)]
#[template(path = "catalog.html")]
struct CatalogPage {
    shell: Shell,
    results: Results,
    q: String,
    kind: String,
    package: String,
    audit: String,
    validity: String,
    drafts: bool,
    packages: Vec<String>,
    counts: Counts,
    /// The namespace switcher: the one chosen, the namespaces the visitor sees items of, and
    /// whether they may star (a person).
    namespace: String,
    namespaces: Vec<String>,
    stars: bool,
}

/// The results part of the catalog, which search as you type replaces.
#[derive(Template)]
#[template(path = "catalog_results.html")]
struct Results {
    rows: Vec<Row>,
    /// How many match the query and the filters.
    matching: usize,
    /// How many the store holds.
    total: usize,
    page: usize,
    pages: usize,
    /// The URL of this view without its page, to which `&page=N` is added.
    base_url: String,
    searching: bool,
    /// The search stopped at the hits it asked for: there may be more.
    capped: bool,
    error: Option<String>,
}

/// How many of each kind the store holds.
struct Counts {
    golden: usize,
    plain: usize,
    packages: usize,
}

pub(crate) async fn page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Query(query): Query<CatalogQuery>,
) -> Response {
    let catalog = studio.catalog_for(&visitor);
    let items: Vec<&std::sync::Arc<CatalogSkill>> =
        catalog.skills().chain(catalog.packages()).collect();
    let drafted = drafted(&studio, &visitor).await;
    let mut error = None;
    let q = query.q.trim();
    let hits: Option<Vec<(String, String)>> = if q.is_empty() {
        None
    } else {
        let searched = async {
            let permit = studio.permit(&visitor, Operation::SearchSkills)?;
            studio
                .server
                .app()
                .search(&permit, q, query.hits_wanted())
                .await
        };
        match searched.await {
            Ok(hits) => Some(hits.into_iter().map(|h| (h.name, h.snippet)).collect()),
            Err(failure) => {
                error = Some(format!("The search failed: {failure}"));
                Some(Vec::new())
            }
        }
    };
    let capped = hits
        .as_ref()
        .is_some_and(|hits| hits.len() >= query.hits_wanted());
    let find = |name: &str| catalog.item(name).cloned();
    let ordered: Vec<(std::sync::Arc<CatalogSkill>, Option<String>)> = match hits {
        Some(hits) => hits
            .into_iter()
            .filter_map(|(name, snippet)| find(&name).map(|skill| (skill, Some(snippet))))
            .collect(),
        None => {
            let mut all: Vec<_> = items.iter().map(|s| ((*s).clone(), None)).collect();
            all.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name));
            all
        }
    };
    let sight = studio.server.app().sight_in(&visitor.caller(), &catalog);
    let in_view = |skill: &CatalogSkill| match query.namespace.as_str() {
        "" => true,
        "starred" => sight.starred(&skill.name),
        namespace => namespace_of_key(&skill.name).to_string() == namespace,
    };
    let matching: Vec<_> = ordered
        .into_iter()
        .filter(|(skill, _)| query.keeps(skill, &drafted) && in_view(skill))
        .collect();
    // A search asks for one hit past its page, so a next page shows when there is one.
    let pages = matching.len().div_ceil(PAGE_SIZE).max(1);
    let page = query.page.unwrap_or(1).clamp(1, pages);
    let rows = matching
        .iter()
        .skip((page - 1) * PAGE_SIZE)
        .take(PAGE_SIZE)
        .map(|(skill, snippet)| row(skill, snippet.clone(), &drafted))
        .collect();
    let results = Results {
        rows,
        matching: matching.len(),
        total: items.len(),
        page,
        pages,
        base_url: query.url_without_page(),
        searching: !q.is_empty(),
        capped,
        error,
    };
    if query.fragment == "1" {
        return html(&results);
    }
    let packages: Vec<String> = catalog.packages().map(|p| p.name.clone()).collect();
    let counts = Counts {
        golden: catalog.skills().filter(|s| s.golden_path).count(),
        plain: catalog.skills().filter(|s| !s.golden_path).count(),
        packages: packages.len(),
    };
    let title = if q.is_empty() {
        "Catalog".to_owned()
    } else {
        format!("“{q}” in the catalog")
    };
    let page = CatalogPage {
        shell: studio.shell(&visitor, title, "catalog"),
        results,
        q: q.to_owned(),
        drafts: query.drafts == "1",
        kind: query.kind,
        package: query.package,
        audit: query.audit,
        validity: query.validity,
        packages,
        counts,
        namespaces: items
            .iter()
            .map(|item| namespace_of_key(&item.name).to_string())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        namespace: query.namespace,
        stars: sight.handle().is_some(),
    };
    if page.results.error.is_some() {
        return html_status(StatusCode::SERVICE_UNAVAILABLE, &page);
    }
    html(&page)
}

impl CatalogQuery {
    /// How many search hits this view needs: those of its page and one more (to know there is
    /// a next page); every one up to [`MAX_HITS`] when filters choose among them.
    fn hits_wanted(&self) -> usize {
        let filtered = [
            &self.kind,
            &self.package,
            &self.audit,
            &self.validity,
            &self.drafts,
        ]
        .iter()
        .any(|filter| !filter.is_empty());
        match filtered {
            true => MAX_HITS,
            false => (self.page.unwrap_or(1).max(1) * PAGE_SIZE + 1).min(MAX_HITS),
        }
    }

    /// Whether `skill` passes the filters.
    fn keeps(&self, skill: &CatalogSkill, drafted: &BTreeSet<String>) -> bool {
        let kind = match self.kind.as_str() {
            "skill" => skill.kind == Kind::Skill,
            "golden" => skill.kind == Kind::Skill && skill.golden_path,
            "plain" => skill.kind == Kind::Skill && !skill.golden_path,
            "package" => skill.kind == Kind::Package,
            _ => true,
        };
        let package = self.package.is_empty()
            || skill
                .package
                .as_ref()
                .is_some_and(|m| m.package == self.package)
            || (skill.kind == Kind::Package && skill.name == self.package);
        let audit = match self.audit.as_str() {
            "findings" => skill.audit_findings > 0,
            "clean" => skill.audit_findings == 0,
            _ => true,
        };
        let validity = match self.validity.as_str() {
            "valid" => valid(skill),
            "invalid" => !valid(skill),
            _ => true,
        };
        let drafts = self.drafts != "1" || drafted.contains(&skill.name);
        kind && package && audit && validity && drafts
    }

    /// This view's URL, without its page number.
    fn url_without_page(&self) -> String {
        let mut url = String::from("/?");
        for (key, value) in [
            ("q", self.q.trim()),
            ("kind", &self.kind),
            ("package", &self.package),
            ("audit", &self.audit),
            ("validity", &self.validity),
            ("drafts", &self.drafts),
            ("namespace", &self.namespace),
        ] {
            if !value.is_empty() {
                url.push_str(&format!("{key}={}&", encode_query(value)));
            }
        }
        url
    }
}

/// Whether a skill meets the specification's rules that hosts check (its Skills-extension
/// entry can be made); a package is judged by its manifest, which the store read.
fn valid(skill: &CatalogSkill) -> bool {
    match skill.kind {
        Kind::Skill => skill.entry.0.is_ok(),
        Kind::Package => skill.manifest.is_some(),
    }
}

fn row(skill: &CatalogSkill, snippet: Option<String>, drafted: &BTreeSet<String>) -> Row {
    let (description, _) = crate::markdown::within(&skill.description, 300);
    Row {
        href: format!("/skills/{}", encode_path(&skill.name)),
        name: skill.name.clone(),
        description: description.to_owned(),
        kind: match (skill.kind, skill.golden_path) {
            (Kind::Package, _) => "package",
            (Kind::Skill, true) => "Golden Path",
            (Kind::Skill, false) => "skill",
        },
        package: skill.package.as_ref().map(|m| m.package.clone()),
        revision: skill.revision,
        findings: skill.audit_findings,
        valid: valid(skill),
        drafted: drafted.contains(&skill.name),
        snippet: snippet.filter(|s| !s.is_empty()).map(|s| marked(&s)),
    }
}

/// A search snippet as HTML: its text escaped, and each match (between `[` and `]`) marked.
fn marked(snippet: &str) -> String {
    let escaped = escape_html(snippet);
    escaped.replace('[', "<mark>").replace(']', "</mark>")
}

/// The names of the items with drafts the visitor may see.
pub(crate) async fn drafted(studio: &Studio, visitor: &Visitor) -> BTreeSet<String> {
    match studio
        .server
        .app()
        .drafts_seen_by(&visitor.caller(), None)
        .await
    {
        Ok(drafts) => drafts.into_iter().map(|d| d.name).collect(),
        Err(_) => BTreeSet::new(),
    }
}
