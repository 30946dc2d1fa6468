//! Scoring a library's ranking against the queries of [`crate::cases`]. The caller ranks each
//! query with the search an agent's server uses and hands the names, best first; this module
//! says, per skill and for the library, how often the right skill came first.
//!
//! Definitions (every figure counts a query once):
//! - a skill's **positives** are the queries that should choose it (its own `should_trigger:
//!   true` rows and library rows naming it); **recall@k** is the share of them that ranked it
//!   within the first `k`; **MRR** the mean of `1 / rank` (0 when it is not among the
//!   [`DEPTH`] names ranked);
//! - a skill's **false triggers** are the queries that should not choose it and ranked it
//!   first: its own near misses (`should_trigger: false`) and library rows with no right skill;
//! - the skills that **beat** it are those ranked first on its positives instead of it, with
//!   how often; a pair of skills is **confused** as often as either beat the other, and the
//!   library's most-confused pairs come first.

use std::collections::BTreeMap;

use crate::cases::{Case, Expected};

/// How many names of each query's ranking an evaluation reads (recall@5, MRR@10).
pub const DEPTH: usize = 10;

/// A query and the names its ranking gave, best first.
#[derive(Debug, Clone)]
pub struct Ranked<'a> {
    /// The query and what it should choose.
    pub case: &'a Case,
    /// The skills ranked, best first (at most [`DEPTH`] are read).
    pub ranking: Vec<String>,
}

impl Ranked<'_> {
    /// The rank of `skill`, from 1, if it is among the names read.
    fn rank_of(&self, skill: &str) -> Option<usize> {
        self.ranking
            .iter()
            .take(DEPTH)
            .position(|name| name == skill)
            .map(|at| at + 1)
    }

    fn first(&self) -> Option<&str> {
        self.ranking.first().map(String::as_str)
    }
}

/// A query that went wrong for a skill.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Miss {
    /// The query.
    pub query: String,
    /// Its file and row.
    pub file: String,
    pub row: usize,
    /// Where the skill ranked (`None`: not among the names read).
    pub rank: Option<usize>,
    /// What ranked first instead (`None`: nothing matched).
    pub first: Option<String>,
}

impl Miss {
    fn of(ranked: &Ranked<'_>, rank: Option<usize>) -> Miss {
        Miss {
            query: ranked.case.query.clone(),
            file: ranked.case.file.clone(),
            row: ranked.case.row,
            rank,
            first: ranked.first().map(str::to_owned),
        }
    }
}

/// How one skill fares.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SkillScore {
    /// The skill.
    pub skill: String,
    /// Queries that should choose it.
    pub positives: usize,
    /// Queries that should not (its near misses).
    pub near_misses: usize,
    /// Share of its positives that ranked it first (`None` without positives).
    pub recall_at_1: Option<f64>,
    /// Share of its positives that ranked it in the first three.
    pub recall_at_3: Option<f64>,
    /// Mean reciprocal rank over its positives.
    pub mrr: Option<f64>,
    /// Its positives that did not rank it first.
    pub missed: Vec<Miss>,
    /// Queries that should not choose it and ranked it first.
    pub false_triggers: Vec<Miss>,
    /// The skills ranked first on its positives instead of it, most often first.
    pub beaten_by: Vec<(String, usize)>,
}

/// Two skills that take each other's queries.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Confusion {
    /// One skill (the first by name).
    pub a: String,
    /// The other.
    pub b: String,
    /// How often one was ranked first on a positive of the other.
    pub count: usize,
}

/// The library as a whole.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Queries run.
    pub queries: usize,
    /// Queries with a right skill.
    pub answerable: usize,
    /// Share of those whose right skill ranked first.
    pub recall_at_1: Option<f64>,
    /// Share of those whose right skill ranked in the first five.
    pub recall_at_5: Option<f64>,
    /// Mean reciprocal rank of the right skill (within [`DEPTH`]).
    pub mrr: Option<f64>,
    /// Queries with no right skill (library rows with `null`).
    pub unanswerable: usize,
    /// Of those, how many matched no skill at all.
    pub unanswered: usize,
    /// Near misses that ranked their own skill first.
    pub near_misses_triggered: usize,
    /// Near misses run.
    pub near_misses: usize,
}

/// Everything an evaluation found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Report {
    /// Per skill that a query names or that ranked first on a query it should not have, by
    /// name.
    pub skills: Vec<SkillScore>,
    /// Pairs of skills that took each other's queries, most confused first.
    pub confused: Vec<Confusion>,
    /// The library's figures.
    pub summary: Summary,
}

#[derive(Default)]
struct Tally {
    positives: usize,
    near_misses: usize,
    at_1: usize,
    at_3: usize,
    reciprocal: f64,
    missed: Vec<Miss>,
    false_triggers: Vec<Miss>,
    beaten_by: BTreeMap<String, usize>,
}

/// Scores `ranked`.
pub fn score(ranked: &[Ranked<'_>]) -> Report {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut confused: BTreeMap<(String, String), usize> = BTreeMap::new();
    let (mut answerable, mut at_1, mut at_5, mut reciprocal) = (0, 0, 0, 0.0);
    let (mut unanswerable, mut unanswered) = (0, 0);
    let (mut near_misses, mut near_misses_triggered) = (0, 0);
    for query in ranked {
        match &query.case.expected {
            Expected::Skill(skill) => {
                let rank = query.rank_of(skill);
                let tally = tallies.entry(skill.clone()).or_default();
                tally.positives += 1;
                answerable += 1;
                if rank == Some(1) {
                    tally.at_1 += 1;
                    at_1 += 1;
                } else {
                    tally.missed.push(Miss::of(query, rank));
                    if let Some(first) = query.first() {
                        *tally.beaten_by.entry(first.to_owned()).or_default() += 1;
                        let pair = if first < skill.as_str() {
                            (first.to_owned(), skill.clone())
                        } else {
                            (skill.clone(), first.to_owned())
                        };
                        *confused.entry(pair).or_default() += 1;
                    }
                }
                if rank.is_some_and(|rank| rank <= 3) {
                    tally.at_3 += 1;
                }
                if rank.is_some_and(|rank| rank <= 5) {
                    at_5 += 1;
                }
                let rr = rank.map_or(0.0, |rank| 1.0 / rank as f64);
                tally.reciprocal += rr;
                reciprocal += rr;
            }
            Expected::NotSkill(skill) => {
                near_misses += 1;
                tallies.entry(skill.clone()).or_default().near_misses += 1;
                if query.first() == Some(skill.as_str()) {
                    near_misses_triggered += 1;
                    tallies
                        .entry(skill.clone())
                        .or_default()
                        .false_triggers
                        .push(Miss::of(query, Some(1)));
                }
            }
            Expected::Nothing => {
                unanswerable += 1;
                match query.first() {
                    None => unanswered += 1,
                    Some(first) => tallies
                        .entry(first.to_owned())
                        .or_default()
                        .false_triggers
                        .push(Miss::of(query, Some(1))),
                }
            }
        }
    }
    let share = |count: usize, of: usize| (of > 0).then(|| count as f64 / of as f64);
    let skills = tallies
        .into_iter()
        .map(|(skill, tally)| {
            let mut beaten_by: Vec<(String, usize)> = tally.beaten_by.into_iter().collect();
            beaten_by.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
            SkillScore {
                skill,
                positives: tally.positives,
                near_misses: tally.near_misses,
                recall_at_1: share(tally.at_1, tally.positives),
                recall_at_3: share(tally.at_3, tally.positives),
                mrr: (tally.positives > 0).then(|| tally.reciprocal / tally.positives as f64),
                missed: tally.missed,
                false_triggers: tally.false_triggers,
                beaten_by,
            }
        })
        .collect();
    let mut confused: Vec<Confusion> = confused
        .into_iter()
        .map(|((a, b), count)| Confusion { a, b, count })
        .collect();
    confused.sort_by(|x, y| {
        y.count
            .cmp(&x.count)
            .then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    Report {
        skills,
        confused,
        summary: Summary {
            queries: ranked.len(),
            answerable,
            recall_at_1: share(at_1, answerable),
            recall_at_5: share(at_5, answerable),
            mrr: (answerable > 0).then(|| reciprocal / answerable as f64),
            unanswerable,
            unanswered,
            near_misses_triggered,
            near_misses,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(query: &str, expected: Expected) -> Case {
        Case {
            query: query.to_owned(),
            expected,
            file: "q.json".to_owned(),
            row: 1,
        }
    }

    fn ranked<'a>(case: &'a Case, names: &[&str]) -> Ranked<'a> {
        Ranked {
            case,
            ranking: names.iter().map(|n| (*n).to_owned()).collect(),
        }
    }

    #[test]
    fn figures_are_those_counted_by_hand() {
        let a = |q| case(q, Expected::Skill("a".into()));
        let cases = [
            a("q1"),
            a("q2"),
            a("q3"),
            a("q4"),
            case("near", Expected::NotSkill("a".into())),
            case("none", Expected::Nothing),
            case("none2", Expected::Nothing),
        ];
        let runs = [
            ranked(&cases[0], &["a", "b"]),      // rank 1
            ranked(&cases[1], &["b", "a"]),      // rank 2, b first
            ranked(&cases[2], &["b", "c", "a"]), // rank 3, b first
            ranked(&cases[3], &[]),              // not found
            ranked(&cases[4], &["a"]),           // a near miss that chose a
            ranked(&cases[5], &["c"]),           // nothing right, c chosen
            ranked(&cases[6], &[]),              // nothing right, nothing matched
        ];
        let report = score(&runs);
        let a = report.skills.iter().find(|s| s.skill == "a").expect("a");
        assert_eq!((a.positives, a.near_misses), (4, 1));
        assert_eq!(a.recall_at_1, Some(0.25));
        assert_eq!(a.recall_at_3, Some(0.75));
        let mrr = (1.0 + 0.5 + 1.0 / 3.0) / 4.0;
        assert!((a.mrr.expect("mrr") - mrr).abs() < 1e-12);
        assert_eq!(a.beaten_by, [("b".to_owned(), 2)]);
        assert_eq!(a.false_triggers.len(), 1);
        assert_eq!(a.missed.len(), 3);
        let c = report.skills.iter().find(|s| s.skill == "c").expect("c");
        assert_eq!(
            (c.positives, c.recall_at_1, c.false_triggers.len()),
            (0, None, 1)
        );
        assert_eq!(
            report.confused,
            [Confusion {
                a: "a".into(),
                b: "b".into(),
                count: 2
            }]
        );
        let summary = &report.summary;
        assert_eq!(
            (
                summary.queries,
                summary.answerable,
                summary.unanswerable,
                summary.unanswered
            ),
            (7, 4, 2, 1)
        );
        assert_eq!(summary.recall_at_5, Some(0.75));
        assert_eq!((summary.near_misses, summary.near_misses_triggered), (1, 1));
    }

    #[test]
    fn names_past_the_depth_are_not_read() {
        let case = case("q", Expected::Skill("z".into()));
        let mut names: Vec<String> = (0..DEPTH).map(|i| format!("s{i}")).collect();
        names.push("z".into());
        let report = score(&[Ranked {
            case: &case,
            ranking: names,
        }]);
        assert_eq!(
            report
                .skills
                .iter()
                .find(|s| s.skill == "z")
                .and_then(|s| s.mrr),
            Some(0.0)
        );
    }
}
