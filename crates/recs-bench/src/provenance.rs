//! Who chose what: the provenance of a reading's choices, the sensitivity of its verdict to
//! the choices that are ours, and the placebo that checks whether a test can fail at all.
//!
//! A reading of a claim rests on choices: the protocol, the population, the tie order of a
//! pooled curve, a model's fit, a threshold, the tolerance of its rule. Each [`Choice`]
//! says who fixed it ([`Source`]): the paper's text (its words and section), the paper's
//! (or post's) code (file and line), or us — before the result, or after a result was
//! seen. Three consequences follow, enforced by [`crate::report::Claim::problems`]:
//!
//! - a reading is *the paper's* only when each of its choices is fixed by the text or the
//!   code, or is one of ours whose [`Sensitivity`] shows that it does not move the verdict;
//! - a reading with a choice named after a result is *post hoc*: it is shown, but never
//!   decides its claim;
//! - a [`Placebo`] (a model that cannot carry the claimed signal) that passes the reading's
//!   test makes the reading untestable by construction.
//!
//! A sensitivity runs the reading's test at the ends of a choice's natural range. When the
//! verdict at an end differs from the reading's own, the reading's verdict becomes *depends
//! on reading*, naming the choice ([`Spread::Knob`]); when the choice is only which random
//! partition stood behind an interval ([`Spread::Partition`]), a flip means the verdict is
//! noise, and the reading is *inconclusive*.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::verdict::{Test, Verdict};

/// What a choice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChoiceKind {
    /// The protocol: splits, candidates, what a test case is.
    Protocol,
    /// Which users or items are counted.
    Population,
    /// How tied scores are ordered.
    TieOrder,
    /// A model's fit: its class count, smoothing, tempering, regularisation.
    ModelFit,
    /// A threshold that turns a measurement into a yes or no (other than the rule's
    /// tolerance).
    Threshold,
    /// The tolerance of the decision rule.
    Tolerance,
    /// What is compared: which measure, which pair, at which cut-off.
    Comparison,
}

impl ChoiceKind {
    /// The kind in words, for a page.
    pub fn as_str(self) -> &'static str {
        match self {
            ChoiceKind::Protocol => "protocol",
            ChoiceKind::Population => "population",
            ChoiceKind::TieOrder => "tie order",
            ChoiceKind::ModelFit => "model fit",
            ChoiceKind::Threshold => "threshold",
            ChoiceKind::Tolerance => "tolerance",
            ChoiceKind::Comparison => "comparison",
        }
    }
}

impl fmt::Display for ChoiceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who fixed a choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum Source {
    /// The paper's own words.
    PaperText {
        /// Section, figure or table (`§6.1`, `Figure 3 caption`).
        section: String,
        /// The words that fix the choice.
        words: String,
    },
    /// The paper's (or post's) code.
    PaperCode {
        /// The file, as its repository names it (`validate.py`).
        file: String,
        /// The line that fixes the choice (from 1).
        line: u32,
    },
    /// Ours, fixed before the result it judges was seen.
    OursBefore {
        /// Why this value.
        why: String,
    },
    /// Ours, named after a result was seen: a reading resting on it is post hoc.
    OursAfter {
        /// Why this value.
        why: String,
        /// The result that had been seen.
        seen: String,
    },
}

impl Source {
    /// Whether the paper's text or code fixes the choice.
    pub fn is_paper(&self) -> bool {
        matches!(self, Source::PaperText { .. } | Source::PaperCode { .. })
    }

    /// Whether the choice was named after a result was seen.
    pub fn is_post_hoc(&self) -> bool {
        matches!(self, Source::OursAfter { .. })
    }

    /// The source in short, for a page: `text §6.1`, `code validate.py:42`, `ours`,
    /// `ours, post hoc`.
    pub fn short(&self) -> String {
        match self {
            Source::PaperText { section, .. } => format!("text {section}"),
            Source::PaperCode { file, line } => format!("code {file}:{line}"),
            Source::OursBefore { .. } => "ours".into(),
            Source::OursAfter { .. } => "ours, post hoc".into(),
        }
    }

    /// Every way the source is incomplete, one line each.
    fn problems(&self) -> Vec<String> {
        let blank =
            |field: &str, text: &str| text.trim().is_empty().then(|| format!("{field} is empty"));
        match self {
            Source::PaperText { section, words } => {
                [blank("the section", section), blank("the words", words)]
                    .into_iter()
                    .flatten()
                    .collect()
            }
            Source::PaperCode { file, line } => {
                let mut out: Vec<String> = blank("the file", file).into_iter().collect();
                if *line == 0 {
                    out.push("the line is 0 (lines count from 1)".into());
                }
                out
            }
            Source::OursBefore { why } => blank("the reason", why).into_iter().collect(),
            Source::OursAfter { why, seen } => {
                [blank("the reason", why), blank("the result seen", seen)]
                    .into_iter()
                    .flatten()
                    .collect()
            }
        }
    }
}

/// One choice a reading rests on, and who fixed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// What the choice is about.
    pub kind: ChoiceKind,
    /// The choice's name, unique within its reading (`tie order of the pooled ROC`); a
    /// [`Sensitivity`] names the choice it varies by this name.
    pub what: String,
    /// The value chosen (`tied pairs count half`).
    pub value: String,
    /// Who fixed it.
    pub by: Source,
}

impl Choice {
    /// A choice fixed by the paper's words in `section`.
    pub fn text(
        kind: ChoiceKind,
        what: impl Into<String>,
        value: impl Into<String>,
        section: impl Into<String>,
        words: impl Into<String>,
    ) -> Choice {
        Choice {
            kind,
            what: what.into(),
            value: value.into(),
            by: Source::PaperText { section: section.into(), words: words.into() },
        }
    }

    /// A choice fixed by the paper's (or post's) code at `file:line`.
    pub fn code(
        kind: ChoiceKind,
        what: impl Into<String>,
        value: impl Into<String>,
        file: impl Into<String>,
        line: u32,
    ) -> Choice {
        Choice {
            kind,
            what: what.into(),
            value: value.into(),
            by: Source::PaperCode { file: file.into(), line },
        }
    }

    /// A choice of ours, fixed before the result.
    pub fn ours(
        kind: ChoiceKind,
        what: impl Into<String>,
        value: impl Into<String>,
        why: impl Into<String>,
    ) -> Choice {
        Choice {
            kind,
            what: what.into(),
            value: value.into(),
            by: Source::OursBefore { why: why.into() },
        }
    }

    /// A choice of ours named after `seen` (a result) was seen.
    pub fn post_hoc(
        kind: ChoiceKind,
        what: impl Into<String>,
        value: impl Into<String>,
        why: impl Into<String>,
        seen: impl Into<String>,
    ) -> Choice {
        Choice {
            kind,
            what: what.into(),
            value: value.into(),
            by: Source::OursAfter { why: why.into(), seen: seen.into() },
        }
    }

    /// The same choice, named after `seen` was seen (a reading that was fixed before,
    /// whose value was then changed after a result).
    pub fn named_after(self, seen: impl Into<String>) -> Choice {
        let why = match self.by {
            Source::OursBefore { why } | Source::OursAfter { why, .. } => why,
            Source::PaperText { words, .. } => words,
            Source::PaperCode { file, line } => format!("{file}:{line}"),
        };
        Choice { by: Source::OursAfter { why, seen: seen.into() }, ..self }
    }

    /// Every way the choice is incomplete, one line each.
    pub fn problems(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .by
            .problems()
            .into_iter()
            .map(|p| format!("choice `{}`: {p}", self.what))
            .collect();
        if self.what.trim().is_empty() {
            out.push(format!("a {} choice has no name", self.kind));
        }
        if self.value.trim().is_empty() {
            out.push(format!("choice `{}` has no value", self.what));
        }
        out
    }
}

/// Whether a flip at an end of a [`Sensitivity`] is a reading of the claim or noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spread {
    /// An open choice with a natural range (a tie order, a tempering, the tolerance): a
    /// verdict that flips inside it *depends on reading*.
    Knob,
    /// Which random partition (or draw) stood behind the interval: a verdict that flips
    /// between partitions is *inconclusive*.
    Partition,
    /// Procedures other than the one the reading's text fixes, named after a result was
    /// seen (a model fitted another way than the paper's reference describes): shown
    /// beside the reading, never moving its verdict, as a post-hoc reading never decides.
    Shown,
}

/// The reading's test at one end of a choice's range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct End {
    /// The value of the choice at this end (`positives first`, `β = 0.6`).
    pub value: String,
    /// The reading's tests with the choice at this value.
    pub tests: Vec<Test>,
    /// [`Verdict::all`] of `tests`, or [`Verdict::Untestable`] when the end's placebo
    /// passes.
    pub verdict: Verdict,
    /// A model that cannot carry the claimed signal, run through the end's tests: an end
    /// changes what the test measures (a list length, a protocol), so what the placebo does
    /// at the reading's own value says nothing of what it does here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placebo: Option<Placebo>,
}

impl End {
    /// The end `value`, judged by `tests`.
    pub fn new(value: impl Into<String>, tests: Vec<Test>) -> End {
        let verdict = Verdict::all(tests.iter().map(|t| t.verdict));
        End { value: value.into(), tests, verdict, placebo: None }
    }

    /// The end with `placebo` run through its tests: when the placebo passes, the end is
    /// untestable by construction, as a reading is.
    pub fn with_placebo(self, placebo: Placebo) -> End {
        let verdict = End::verdict_of(&self.tests, Some(&placebo));
        End { verdict, placebo: Some(placebo), ..self }
    }

    /// The verdict of an end with `tests` and `placebo`.
    pub fn verdict_of(tests: &[Test], placebo: Option<&Placebo>) -> Verdict {
        match placebo {
            Some(p) if p.passes() => Verdict::Untestable,
            _ => Verdict::all(tests.iter().map(|t| t.verdict)),
        }
    }
}

/// A reading's verdict at the ends of the natural range of one of its choices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sensitivity {
    /// The [`Choice::what`] varied.
    pub knob: String,
    /// What a flip means.
    pub spread: Spread,
    /// The verdict at each end (at least one).
    pub ends: Vec<End>,
}

impl Sensitivity {
    /// The choice `knob` of natural range `ends`; a flip *depends on reading*.
    pub fn knob(knob: impl Into<String>, ends: Vec<End>) -> Sensitivity {
        Sensitivity { knob: knob.into(), spread: Spread::Knob, ends }
    }

    /// Procedures other than the reading's (`ends`), named after a result: shown, never
    /// deciding ([`Spread::Shown`]).
    pub fn shown(what: impl Into<String>, ends: Vec<End>) -> Sensitivity {
        Sensitivity { knob: what.into(), spread: Spread::Shown, ends }
    }

    /// Whether a flip at one of its ends can move the reading's verdict: every spread but
    /// [`Spread::Shown`].
    pub fn decides(&self) -> bool {
        self.spread != Spread::Shown
    }

    /// Other partitions (`ends`) of the data behind the reading's interval; a flip makes
    /// the reading inconclusive.
    pub fn partitions(knob: impl Into<String>, ends: Vec<End>) -> Sensitivity {
        Sensitivity { knob: knob.into(), spread: Spread::Partition, ends }
    }

    /// The tolerance of every test of `tests` at half and at twice its value, a premise's
    /// with it (tests without a tolerance, `τ = 0`, stay as they are); `None` when no test
    /// has a tolerance.
    pub fn tolerance(tests: &[Test]) -> Option<Sensitivity> {
        if tests.iter().all(|t| t.rule.tolerance == 0.0) {
            return None;
        }
        let scaled = |factor: f64| -> Vec<Test> {
            tests.iter().map(|t| t.with_tolerance_scaled(factor)).collect()
        };
        Some(Sensitivity::knob(
            TOLERANCE,
            vec![
                End::new("half the tolerance", scaled(0.5)),
                End::new("twice the tolerance", scaled(2.0)),
            ],
        ))
    }

    /// Whether some end's verdict differs from `verdict`.
    pub fn flips(&self, verdict: Verdict) -> bool {
        self.ends.iter().any(|e| e.verdict != verdict)
    }
}

/// The name of the tolerance choice that every reading with a tolerance carries.
pub const TOLERANCE: &str = "the rule's tolerance";

/// The tolerance choice of a reading: ours, fixed before the results, checked at half and
/// twice its value.
pub fn tolerance_choice() -> Choice {
    Choice::ours(
        ChoiceKind::Tolerance,
        TOLERANCE,
        "as each test's rule states",
        "fixed before the results; its natural range, half to twice the value, is checked",
    )
}

/// A model that by construction cannot carry the claimed signal, run through the reading's
/// test: when it passes, the test cannot tell the signal from its absence, and the reading
/// is untestable by construction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placebo {
    /// The placebo model (`item popularity`).
    pub model: String,
    /// Why it cannot carry the signal.
    pub why: String,
    /// The reading's tests with the placebo in the claimed model's place.
    pub tests: Vec<Test>,
    /// [`Verdict::all`] of `tests`.
    pub verdict: Verdict,
}

impl Placebo {
    /// The placebo `model` (which cannot carry the signal because `why`) judged by `tests`.
    pub fn new(model: impl Into<String>, why: impl Into<String>, tests: Vec<Test>) -> Placebo {
        let verdict = Verdict::all(tests.iter().map(|t| t.verdict));
        Placebo { model: model.into(), why: why.into(), tests, verdict }
    }

    /// Whether the placebo passes the test (and so the test decides nothing).
    pub fn passes(&self) -> bool {
        self.verdict == Verdict::Holds
    }
}
