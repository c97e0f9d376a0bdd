//! The report contract: `report.json` (versioned), its validation, and `report.md`.
//!
//! Field names follow the contract of the design document; more fields may be added but
//! none renamed. [`Report::validate`] checks what a reader relies on: curves start at
//! (0, 0) and end at (1, 1), never go backwards, and `auc` is the trapezoid area of
//! exactly the stored points.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use recs_metrics::{partial_trapezoid, trapezoid};
use serde::{Deserialize, Serialize};

pub use crate::comparisons::ComparisonFamily;
pub use crate::provenance::{
    Choice, ChoiceKind, End, Placebo, Sensitivity, Source, Spread, TOLERANCE, tolerance_choice,
};
pub use crate::verdict::{Direction, Effect, IntervalKind, Rule, Test, Verdict};

/// Version of the `report.json` layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 2;

/// A whole reproduction or experiment report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Layout version, [`SCHEMA_VERSION`] when written by this crate.
    pub schema_version: u32,
    /// Paper or experiment name (`schein2005`, or a config's name).
    pub paper: String,
    /// The seed every random choice derived from.
    pub seed: u64,
    /// True for the CI-sized run.
    pub quick: bool,
    /// Version of the crates that wrote the report.
    pub version: String,
    /// The source commit that wrote the report, when it was written from a checkout
    /// (`git describe`'s hash, with `-modified` when tracked files differed from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The datasets read, with checksums of their files.
    pub datasets: Vec<DatasetEntry>,
    /// One entry per experiment (figure or table of the paper).
    pub experiments: Vec<Experiment>,
    /// The paper's claims, each evaluated on our results.
    pub claims: Vec<Claim>,
    /// Paired comparisons of an experiment's models over users (a configuration's
    /// `[comparison]`), each filed under its experiment's id; absent when none was asked
    /// for, so reports without them read and write as before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<ComparisonFamily>,
}

/// A dataset as used by a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetEntry {
    /// Registry name (`msweb`, `ml-100k`).
    pub name: String,
    /// Users in the loaded data.
    pub users: u64,
    /// Items in the loaded data.
    pub items: u64,
    /// Events in the loaded data.
    pub events: u64,
    /// The files read and their sha256.
    pub files: Vec<FileEntry>,
}

/// A file read for a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Path relative to the dataset folder.
    pub path: String,
    /// Lower-case hex sha256 of the file's bytes.
    pub sha256: String,
}

/// One experiment: a protocol, a test mode, and its results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// Stable identifier (`fig3-msweb`).
    pub id: String,
    /// The protocol in words, with its parameters.
    pub protocol: String,
    /// Test mode (`implicit`, `rating:4`, `conditional:4`).
    pub mode: String,
    /// Number of judged (user, item) candidate pairs.
    pub candidates: u64,
    /// Number of relevant candidates.
    pub positives: u64,
    /// ROC and CROC curves of every model and reference.
    pub curves: Vec<Curve>,
    /// Tables of numbers (AUCs, validation scores, side metrics).
    pub tables: Vec<Table>,
}

/// Which curve a [`Curve`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CurveKind {
    /// The pooled ROC curve.
    Roc,
    /// The customer-constrained CROC curve.
    Croc,
}

/// One curve of one model (or reference) in one experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// ROC or CROC.
    pub kind: CurveKind,
    /// Model name, or `omniscient` / `random-expected` for references.
    pub model: String,
    /// Hyper-parameters as text.
    pub params: BTreeMap<String, String>,
    /// (false-alarm rate, hit rate) points from (0, 0) to (1, 1).
    pub points: Vec<[f64; 2]>,
    /// Trapezoid area under exactly `points`.
    pub auc: f64,
    /// Area up to false-alarm rate 0.3 (not divided by 0.3).
    pub pauc_0_3: f64,
}

/// A table of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Table name.
    pub name: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows of cells (numbers or text).
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// A table cell from an optional number: the number, or null where it is undefined.
pub(crate) fn cell(value: Option<f64>) -> serde_json::Value {
    value.map_or(serde_json::Value::Null, |v| serde_json::json!(v))
}

/// A claim of the paper, judged on our results under the verdict model
/// ([`crate::verdict`]): its evidence is data, not prose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Stable identifier (`S1`).
    pub id: String,
    /// The claim in words, as we test it.
    pub statement: String,
    /// The paper's own words and where they are.
    pub paper: Quote,
    /// What we measured, in words; the numbers are in `readings`.
    pub measured: String,
    /// The readings the claim was judged under, each with its tests (at least one).
    pub readings: Vec<Reading>,
    /// Why no reading runs a placebo through its tests, when none does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_placebo: Option<String>,
    /// The stand-ins every reading is measured on, when the paper's own data is not
    /// available: the verdict is then about them, and says so ([`Claim::verdict_text`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_ins: Option<String>,
    /// The claim's verdict, from its readings ([`Claim::verdict_of`]).
    pub verdict: Verdict,
}

/// The paper's words behind a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// Section, figure or table (`§6.1`, `Figure 3`).
    pub section: String,
    /// The paper's words (quoted, or closely paraphrased where the claim is a figure).
    pub words: String,
}

/// One reading of a claim: the choices it rests on (the paper leaves them open, or fixes
/// them), each with who fixed it, and the tests that judge the claim under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// The reading's name (`same people`, `gain = rating − 3`).
    pub name: String,
    /// Whether this is the paper's reading: every choice it rests on is fixed by the
    /// paper's text or code, or is ours and shown not to move the verdict
    /// ([`Claim::provenance_problems`] refuses the tag otherwise).
    pub primary: bool,
    /// The choices the reading rests on, with who fixed each.
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// Whether a choice was named after a result was seen: then the reading is shown but
    /// never decides its claim.
    #[serde(default)]
    pub post_hoc: bool,
    /// The tests under this reading; every one must hold for the reading to hold.
    pub tests: Vec<Test>,
    /// The tests at the ends of the natural range of choices of ours.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensitivity: Vec<Sensitivity>,
    /// A model that cannot carry the claimed signal, through the same tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placebo: Option<Placebo>,
    /// Set when the reading cannot test the claim, and why; its tests are then evidence
    /// only.
    pub untestable: Option<Untestable>,
    /// The reading's verdict ([`Reading::judged`]).
    pub verdict: Verdict,
}

/// Choices in short, by who fixed them: `paper: protocol; ours: tolerance, tie order`
/// (each kind once, in order of first appearance).
fn provenance_of<'a>(choices: impl Iterator<Item = &'a Choice>) -> String {
    let mut paper: Vec<&str> = Vec::new();
    let mut ours: Vec<&str> = Vec::new();
    let mut after: Vec<&str> = Vec::new();
    for c in choices {
        let list = match c.by {
            Source::PaperText { .. } | Source::PaperCode { .. } => &mut paper,
            Source::OursBefore { .. } => &mut ours,
            Source::OursAfter { .. } => &mut after,
        };
        if !list.contains(&c.kind.as_str()) {
            list.push(c.kind.as_str());
        }
    }
    let mut parts = Vec::new();
    for (name, list) in [("paper", paper), ("ours", ours), ("ours post hoc", after)] {
        if !list.is_empty() {
            parts.push(format!("{name}: {}", list.join(", ")));
        }
    }
    if parts.is_empty() { "not recorded".into() } else { parts.join("; ") }
}

/// Why a reading cannot test its claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Untestable {
    /// A bound or a construction.
    pub cause: UntestableCause,
    /// Which bound, or which construction, in words.
    pub why: String,
}

/// The two causes of an untestable reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UntestableCause {
    /// The measure sits at a bound (recall 1 at every k, an area at 0).
    Bound,
    /// The set-up makes the claim true or false whatever the data.
    Construction,
    /// The claim is about data that is not available (a private dataset); a stand-in
    /// cannot test it.
    NoData,
}

impl Reading {
    /// A reading judged by `tests` (all must hold). When a test has a tolerance, the
    /// reading carries the tolerance as a choice of ours ([`tolerance_choice`]) and its
    /// tests at half and twice the tolerance ([`Sensitivity::tolerance`]).
    pub fn new(name: impl Into<String>, tests: Vec<Test>) -> Reading {
        let sensitivity: Vec<Sensitivity> = Sensitivity::tolerance(&tests).into_iter().collect();
        let choices = if sensitivity.is_empty() { Vec::new() } else { vec![tolerance_choice()] };
        Reading {
            name: name.into(),
            primary: false,
            choices,
            post_hoc: false,
            tests,
            sensitivity,
            placebo: None,
            untestable: None,
            verdict: Verdict::Untestable,
        }
        .judged()
    }

    /// A reading that cannot test the claim (`cause`, `why`); `tests` are kept as
    /// evidence.
    pub fn untestable(
        name: impl Into<String>,
        cause: UntestableCause,
        why: impl Into<String>,
        tests: Vec<Test>,
    ) -> Reading {
        Reading {
            name: name.into(),
            primary: false,
            choices: Vec::new(),
            post_hoc: false,
            tests,
            sensitivity: Vec::new(),
            placebo: None,
            untestable: Some(Untestable { cause, why: why.into() }),
            verdict: Verdict::Untestable,
        }
    }

    /// The same reading, marked as the paper's own.
    pub fn primary(self) -> Reading {
        Reading { primary: true, ..self }
    }

    /// The same reading, tagged the paper's when the rules allow it: it cites the paper's
    /// text or code, no choice was named after a result, and every choice of ours has a
    /// sensitivity that leaves the verdict as it is. Otherwise it stays untagged, and its
    /// choices say why.
    pub fn primary_if_fixed(self) -> Reading {
        let tagged = Reading { primary: true, ..self };
        let fixed = tagged.provenance_problems().is_empty();
        Reading { primary: fixed, ..tagged }
    }

    /// The same reading resting on `choices` too (a choice of the same name is replaced).
    pub fn with_choices(mut self, choices: impl IntoIterator<Item = Choice>) -> Reading {
        for choice in choices {
            self.choices.retain(|c| c.what != choice.what);
            self.choices.push(choice);
        }
        self.judged()
    }

    /// The same reading with its tests at the ends of `sensitivity`'s range too.
    pub fn with_sensitivity(mut self, sensitivity: Sensitivity) -> Reading {
        self.sensitivity.retain(|s| s.knob != sensitivity.knob);
        self.sensitivity.push(sensitivity);
        self.judged()
    }

    /// The same reading with `placebo` run through its tests.
    pub fn with_placebo(self, placebo: Placebo) -> Reading {
        Reading { placebo: Some(placebo), ..self }.judged()
    }

    /// The reading with `post_hoc` and `verdict` computed from the rest: untestable when
    /// `untestable` is set or the placebo passes; otherwise [`Verdict::all`] of the tests,
    /// made inconclusive by a flip between partitions and *depends on reading* by a flip
    /// across a knob's range.
    pub fn judged(mut self) -> Reading {
        self.post_hoc = self.choices.iter().any(|c| c.by.is_post_hoc());
        self.verdict = self.expected_verdict();
        self
    }

    /// The verdict [`Reading::judged`] gives.
    fn expected_verdict(&self) -> Verdict {
        if self.untestable.is_some() || self.placebo.as_ref().is_some_and(Placebo::passes) {
            return Verdict::Untestable;
        }
        let base = Verdict::all(self.tests.iter().map(|t| t.verdict));
        let flips =
            |spread: Spread| self.sensitivity.iter().any(|s| s.spread == spread && s.flips(base));
        if flips(Spread::Partition) {
            Verdict::Inconclusive
        } else if flips(Spread::Knob) {
            Verdict::DependsOnReading
        } else {
            base
        }
    }

    /// The knobs whose range flips the verdict, by name.
    pub fn flipping_knobs(&self) -> Vec<&str> {
        let base = Verdict::all(self.tests.iter().map(|t| t.verdict));
        self.sensitivity
            .iter()
            .filter(|s| s.decides() && s.flips(base))
            .map(|s| s.knob.as_str())
            .collect()
    }

    /// Why the reading's verdict is what it is, in one line.
    pub fn reason(&self) -> String {
        if let Some(u) = &self.untestable {
            let cause = match u.cause {
                UntestableCause::Bound => "at a bound",
                UntestableCause::Construction => "by construction",
                UntestableCause::NoData => "no data",
            };
            return format!("{cause}: {}", u.why);
        }
        if let Some(p) = self.placebo.as_ref().filter(|p| p.passes()) {
            return format!(
                "by construction: the placebo {} passes the same test ({})",
                p.model, p.why
            );
        }
        let base = Verdict::all(self.tests.iter().map(|t| t.verdict));
        let flips: Vec<String> = self
            .sensitivity
            .iter()
            .filter(|s| s.decides() && s.flips(base))
            .map(|s| {
                // One line: how many ends move the verdict and to what; the evidence table
                // names every end with its verdict.
                let mut moved: Vec<Verdict> = Vec::new();
                let mut count = 0;
                for e in s.ends.iter().filter(|e| e.verdict != base) {
                    count += 1;
                    if !moved.contains(&e.verdict) {
                        moved.push(e.verdict);
                    }
                }
                let what = match s.spread {
                    Spread::Knob | Spread::Shown => "",
                    Spread::Partition => "(noise) ",
                };
                let to: Vec<String> = moved.iter().map(ToString::to_string).collect();
                let ends = if s.ends.len() == 1 { "end" } else { "ends" };
                format!("{what}{} ({count} of {} {ends}: {})", s.knob, s.ends.len(), to.join(", "))
            })
            .collect();
        if !flips.is_empty() {
            return format!("{base} as run, but flips with {}", flips.join("; "));
        }
        let reason = match self.decisive_test() {
            Some(t) => t.reason(),
            None => return "no test".into(),
        };
        // A reading that fails where the placebo fails too says so: its failure may come
        // from the protocol rather than from the model.
        match &self.placebo {
            Some(p) if base == Verdict::Fails && p.verdict == Verdict::Fails => {
                format!("{reason}; the placebo {} fails too", p.model)
            }
            _ => reason,
        }
    }

    /// The test that decides the reading's own verdict: the first that fails, else the
    /// first not holding, else the first.
    pub fn decisive_test(&self) -> Option<&Test> {
        self.tests
            .iter()
            .find(|t| t.verdict == Verdict::Fails)
            .or_else(|| self.tests.iter().find(|t| t.verdict != Verdict::Holds))
            .or_else(|| self.tests.first())
    }

    /// The test a reader should see first, named: where a range flips the verdict, the test
    /// that does not hold at the first end that flips it (`… at β = 0.6`); otherwise the
    /// [`Reading::decisive_test`].
    pub fn key_test(&self) -> Option<(String, &Test)> {
        let base = Verdict::all(self.tests.iter().map(|t| t.verdict));
        let flipped = self
            .sensitivity
            .iter()
            .filter(|s| s.decides() && s.flips(base))
            .flat_map(|s| s.ends.iter().filter(move |e| e.verdict != base))
            .find_map(|end| {
                // The test that moved: the same subject as a reading's test, with another
                // verdict; else the first with the end's verdict, else the first not holding.
                let moved = end.tests.iter().find(|t| {
                    t.verdict == end.verdict
                        && self
                            .tests
                            .iter()
                            .any(|b| b.subject == t.subject && b.verdict != t.verdict)
                });
                // An end its placebo makes untestable is shown by the placebo's test.
                let placebo = end.placebo.as_ref().filter(|p| p.passes());
                let test = moved
                    .or_else(|| placebo.and_then(|p| p.tests.first()))
                    .or_else(|| end.tests.iter().find(|t| t.verdict == end.verdict))
                    .or_else(|| end.tests.iter().find(|t| t.verdict != Verdict::Holds))?;
                Some((format!("{} (at {})", test.subject, end.value), test))
            });
        flipped.or_else(|| self.decisive_test().map(|t| (t.subject.clone(), t)))
    }

    /// The reading's provenance in short: `paper: protocol; ours: tolerance, tie order`.
    pub fn provenance(&self) -> String {
        provenance_of(self.choices.iter())
    }

    /// Every way the reading's provenance breaks the rules, one line each: no choice
    /// recorded, an incomplete source, a "the paper's" tag resting on a choice of ours
    /// that is not shown harmless, a post-hoc reading tagged the paper's, a sensitivity
    /// naming no choice.
    pub fn provenance_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.choices.is_empty() && self.untestable.is_none() {
            out.push("records no choice (who fixed what)".to_string());
        }
        for c in &self.choices {
            out.extend(c.problems());
        }
        for s in &self.sensitivity {
            if !self.choices.iter().any(|c| c.what == s.knob) && s.spread == Spread::Knob {
                out.push(format!("a sensitivity varies `{}`, which is no choice of it", s.knob));
            }
        }
        if self.primary {
            if self.post_hoc {
                out.push("tagged the paper's, but a choice was named after a result".into());
            }
            if !self.choices.iter().any(|c| c.by.is_paper()) {
                out.push("tagged the paper's without citing the paper's text or code".into());
            }
            let base = Verdict::all(self.tests.iter().map(|t| t.verdict));
            for c in self.choices.iter().filter(|c| !c.by.is_paper()) {
                let harmless = self.sensitivity.iter().any(|s| s.knob == c.what && !s.flips(base));
                if !harmless {
                    out.push(format!(
                        "tagged the paper's, but `{}` is ours and not shown to leave the verdict as it is",
                        c.what
                    ));
                }
            }
        }
        out
    }
}

impl Claim {
    /// A claim judged under `readings`; its verdict is [`Claim::verdict_of`] them.
    pub fn new(
        id: impl Into<String>,
        statement: impl Into<String>,
        paper: Quote,
        measured: impl Into<String>,
        readings: Vec<Reading>,
    ) -> Claim {
        let verdict = Claim::verdict_of(&readings);
        Claim {
            id: id.into(),
            statement: statement.into(),
            paper,
            measured: measured.into(),
            readings,
            no_placebo: None,
            stand_ins: None,
            verdict,
        }
    }

    /// The same claim, saying why no placebo applies to it.
    pub fn without_placebo(self, why: impl Into<String>) -> Claim {
        Claim { no_placebo: Some(why.into()), ..self }
    }

    /// The same claim, measured only on `stand_ins` for data that is not available.
    pub fn on_stand_ins(self, stand_ins: impl Into<String>) -> Claim {
        Claim { stand_ins: Some(stand_ins.into()), ..self }
    }

    /// The verdict as a table shows it, in Markdown: bold, and for a claim measured on
    /// stand-ins, what the verdict says of the paper's own data.
    ///
    /// ```
    /// use recs_bench::report::{Claim, Quote, Reading};
    /// use recs_bench::verdict::{Effect, Rule, Test};
    ///
    /// let test = Test::new("a − b", Rule::not_below(0.0), Effect::exact(-0.2));
    /// let claim = Claim::new(
    ///     "T1",
    ///     "a is at least b",
    ///     Quote { section: "§5".into(), words: "a beats b".into() },
    ///     "a − b = −0.2",
    ///     vec![Reading::new("as written", vec![test])],
    /// );
    /// assert_eq!(claim.verdict_text(), "**fails**");
    /// let claim = claim.on_stand_ins("a generated substitute");
    /// assert_eq!(
    ///     claim.verdict_text(),
    ///     "**fails** on stand-ins (a generated substitute): not reproduced there, not refuted"
    /// );
    /// ```
    pub fn verdict_text(&self) -> String {
        let Some(stand_ins) = &self.stand_ins else {
            return format!("**{}**", self.verdict);
        };
        let meaning = match self.verdict {
            Verdict::Holds => ": reproduced there, the paper's data untested",
            Verdict::Fails => ": not reproduced there, not refuted",
            _ => "",
        };
        format!("**{}** on stand-ins ({stand_ins}){meaning}", self.verdict)
    }

    /// The same claim with `f` applied to every reading (choices shared by all of them,
    /// say), its verdict recomputed.
    pub fn map_readings(mut self, f: impl Fn(Reading) -> Reading) -> Claim {
        self.readings = self.readings.into_iter().map(f).collect();
        self.verdict = Claim::verdict_of(&self.readings);
        self
    }

    /// A claim's verdict from its readings. Post-hoc readings never decide. Of the others:
    /// the primary reading's verdict when there is one; otherwise their common verdict, or
    /// [`Verdict::DependsOnReading`] when they differ; inconclusive when every reading is
    /// post hoc.
    pub fn verdict_of(readings: &[Reading]) -> Verdict {
        let deciding: Vec<&Reading> = readings.iter().filter(|r| !r.post_hoc).collect();
        if readings.is_empty() {
            return Verdict::Untestable;
        }
        if let Some(primary) = deciding.iter().find(|r| r.primary) {
            return primary.verdict;
        }
        match deciding.split_first() {
            None => Verdict::Inconclusive,
            Some((first, rest)) if rest.iter().all(|r| r.verdict == first.verdict) => first.verdict,
            Some(_) => Verdict::DependsOnReading,
        }
    }

    /// The readings that decide the verdict: the primary one when there is one, otherwise
    /// every reading fixed before the results.
    pub fn deciding(&self) -> Vec<&Reading> {
        let before: Vec<&Reading> = self.readings.iter().filter(|r| !r.post_hoc).collect();
        match before.iter().find(|r| r.primary) {
            Some(primary) => vec![primary],
            None => before,
        }
    }

    /// Why the claim's verdict is what it is, in one line.
    pub fn reason(&self) -> String {
        let deciding = self.deciding();
        match deciding.as_slice() {
            [] => "every reading was named after a result: nothing decides".into(),
            [one] => one.reason(),
            many if self.verdict == Verdict::DependsOnReading => {
                // Counted by outcome, in order of first appearance: the table below names
                // each reading; one line stays one line however many readings there are.
                let mut outcomes: Vec<(String, usize)> = Vec::new();
                for r in many {
                    let outcome = match r.flipping_knobs().as_slice() {
                        [] => r.verdict.to_string(),
                        knobs => format!("flips with {}", knobs.join(", ")),
                    };
                    match outcomes.iter_mut().find(|(o, _)| *o == outcome) {
                        Some((_, n)) => *n += 1,
                        None => outcomes.push((outcome, 1)),
                    }
                }
                let each: Vec<String> =
                    outcomes.iter().map(|(outcome, n)| format!("{outcome}: {n}")).collect();
                format!("the {} readings differ ({})", many.len(), each.join("; "))
            }
            many => many[0].reason(),
        }
    }

    /// The claim's provenance in short: the choices of its deciding readings together,
    /// each kind once under who fixed it (a kind the paper fixes in one reading and we in
    /// another is listed under both), and whether post-hoc readings are shown. When every
    /// reading is post hoc, their choices are listed, and said to be post hoc only.
    pub fn provenance(&self) -> String {
        let deciding = self.deciding();
        if deciding.is_empty() && !self.readings.is_empty() {
            let all = provenance_of(self.readings.iter().flat_map(|r| r.choices.iter()));
            return format!("{all}; post-hoc readings only, none deciding");
        }
        let mut out = provenance_of(deciding.iter().flat_map(|r| r.choices.iter()));
        if self.readings.iter().any(|r| r.post_hoc) {
            out.push_str("; post-hoc readings shown, not deciding");
        }
        out
    }

    /// Every way the claim breaks the provenance rules ([`Reading::provenance_problems`]),
    /// and a claim with neither a placebo nor a reason why none applies.
    pub fn provenance_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in &self.readings {
            out.extend(
                r.provenance_problems()
                    .into_iter()
                    .map(|p| format!("claim {}: reading `{}`: {p}", self.id, r.name)),
            );
        }
        let has_placebo = self.readings.iter().any(|r| r.placebo.is_some());
        match &self.no_placebo {
            None if !has_placebo => {
                out.push(format!("claim {}: no placebo and no reason why none applies", self.id))
            }
            Some(why) if why.trim().is_empty() => {
                out.push(format!("claim {}: the reason why no placebo applies is empty", self.id));
            }
            _ => {}
        }
        out
    }

    /// Every way the claim breaks the verdict model, one line each.
    pub fn problems(&self) -> Vec<String> {
        let at = |what: String| format!("claim {}: {what}", self.id);
        let mut out = Vec::new();
        for (field, text) in [
            ("statement", &self.statement),
            ("measured", &self.measured),
            ("paper.words", &self.paper.words),
            ("paper.section", &self.paper.section),
        ] {
            if text.trim().is_empty() {
                out.push(at(format!("{field} is empty")));
            }
        }
        if self.readings.is_empty() {
            out.push(at("no reading".into()));
        }
        if self.readings.iter().filter(|r| r.primary).count() > 1 {
            out.push(at("more than one primary reading".into()));
        }
        for reading in &self.readings {
            let at = |what: String| at(format!("reading `{}`: {what}", reading.name));
            if reading.name.trim().is_empty() {
                out.push(at("no name".into()));
            }
            match &reading.untestable {
                Some(u) if u.why.trim().is_empty() => {
                    out.push(at("untestable without saying why".into()));
                }
                Some(_) => {}
                None if reading.tests.is_empty() => out.push(at("no test".into())),
                None => {}
            }
            let expected = reading.expected_verdict();
            if reading.verdict != expected {
                out.push(at(format!(
                    "verdict {} where its tests give {expected}",
                    reading.verdict
                )));
            }
            if reading.post_hoc != reading.choices.iter().any(|c| c.by.is_post_hoc()) {
                out.push(at("post_hoc does not match its choices".into()));
            }
            let mut groups: Vec<(String, &[Test], Verdict)> = Vec::new();
            for s in &reading.sensitivity {
                if s.ends.is_empty() {
                    out.push(at(format!("the sensitivity to `{}` has no end", s.knob)));
                }
                for e in &s.ends {
                    let what = format!("`{}` at {}", s.knob, e.value);
                    let expected = End::verdict_of(&e.tests, e.placebo.as_ref());
                    if e.verdict != expected {
                        out.push(at(format!(
                            "{what}: verdict {} where its tests and placebo give {expected}",
                            e.verdict
                        )));
                    }
                    if let Some(p) = &e.placebo {
                        groups.push((
                            format!("{what}, the placebo {}", p.model),
                            &p.tests,
                            p.verdict,
                        ));
                    }
                    groups.push((what, &e.tests, Verdict::all(e.tests.iter().map(|t| t.verdict))));
                }
            }
            if let Some(p) = &reading.placebo {
                groups.push((format!("the placebo {}", p.model), &p.tests, p.verdict));
            }
            let placebos = reading.placebo.iter().chain(
                reading
                    .sensitivity
                    .iter()
                    .flat_map(|s| s.ends.iter().filter_map(|e| e.placebo.as_ref())),
            );
            for p in placebos {
                if p.why.trim().is_empty() || p.model.trim().is_empty() {
                    out.push(at("a placebo without its model or why".into()));
                }
            }
            for (what, tests, verdict) in groups {
                let all = Verdict::all(tests.iter().map(|t| t.verdict));
                if verdict != all {
                    out.push(at(format!("{what}: verdict {verdict} where its tests give {all}")));
                }
                for test in tests {
                    let decided = test.decide();
                    if test.verdict != decided {
                        out.push(at(format!(
                            "{what}: test `{}`: verdict {} where the rule gives {decided}",
                            test.subject, test.verdict
                        )));
                    }
                }
            }
            for test in &reading.tests {
                let at = |what: String| at(format!("test `{}`: {what}", test.subject));
                if test.subject.trim().is_empty() {
                    out.push(at("no subject".into()));
                }
                if !(test.rule.tolerance.is_finite() && test.rule.tolerance >= 0.0) {
                    out.push(at(format!(
                        "tolerance {} is not finite and ≥ 0",
                        test.rule.tolerance
                    )));
                }
                out.extend(test.effect.problems().into_iter().map(&at));
                let decided = test.decide();
                if test.verdict != decided {
                    out.push(at(format!(
                        "verdict {} where the rule gives {decided}",
                        test.verdict
                    )));
                }
            }
        }
        let expected = Claim::verdict_of(&self.readings);
        if self.verdict != expected {
            out.push(at(format!("verdict {} where its readings give {expected}", self.verdict)));
        }
        out
    }
}

impl Curve {
    /// Builds a curve from its points, computing `auc` and `pauc_0_3` from them so the
    /// contract holds by construction.
    pub fn from_points(kind: CurveKind, model: impl Into<String>, points: Vec<[f64; 2]>) -> Self {
        let auc = trapezoid(&points);
        let pauc_0_3 = partial_trapezoid(&points, 0.3);
        Curve { kind, model: model.into(), params: BTreeMap::new(), points, auc, pauc_0_3 }
    }
}

impl Report {
    /// An empty report of `paper`, written by this version of the crates.
    pub fn new(paper: impl Into<String>, seed: u64, quick: bool) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            paper: paper.into(),
            seed,
            quick,
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: None,
            datasets: Vec::new(),
            experiments: Vec::new(),
            claims: Vec::new(),
            comparisons: Vec::new(),
        }
    }

    /// Every contract violation, one line each (empty when the report is well formed).
    pub fn validate(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.schema_version != SCHEMA_VERSION {
            problems
                .push(format!("schema_version {} is not {SCHEMA_VERSION}", self.schema_version));
        }
        for experiment in &self.experiments {
            for curve in &experiment.curves {
                let at = format!("{} {:?} {}", experiment.id, curve.kind, curve.model);
                let close = |p: &[f64; 2], q: [f64; 2]| {
                    (p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9
                };
                match (curve.points.first(), curve.points.last()) {
                    (Some(first), Some(last)) => {
                        if !close(first, [0.0, 0.0]) {
                            problems.push(format!("{at}: first point {first:?} is not (0, 0)"));
                        }
                        if !close(last, [1.0, 1.0]) {
                            problems.push(format!("{at}: last point {last:?} is not (1, 1)"));
                        }
                    }
                    _ => problems.push(format!("{at}: no points")),
                }
                if curve
                    .points
                    .windows(2)
                    .any(|w| w[1][0] < w[0][0] - 1e-12 || w[1][1] < w[0][1] - 1e-12)
                {
                    problems.push(format!("{at}: points go backwards"));
                }
                if curve
                    .points
                    .iter()
                    .flatten()
                    .any(|v| !v.is_finite() || *v < -1e-12 || *v > 1.0 + 1e-12)
                {
                    problems.push(format!("{at}: a coordinate is outside [0, 1]"));
                }
                let area = trapezoid(&curve.points);
                if (area - curve.auc).abs() > 1e-9 {
                    problems
                        .push(format!("{at}: auc {} differs from the trapezoid {area}", curve.auc));
                }
                let partial = partial_trapezoid(&curve.points, 0.3);
                if (partial - curve.pauc_0_3).abs() > 1e-9 {
                    problems
                        .push(format!("{at}: pauc_0_3 {} differs from {partial}", curve.pauc_0_3));
                }
            }
        }
        let mut ids: Vec<&str> = self.claims.iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            problems.push("claim ids are not unique".to_string());
        }
        for claim in &self.claims {
            problems.extend(claim.problems());
        }
        let ids: Vec<&str> = self.experiments.iter().map(|e| e.id.as_str()).collect();
        for comparison in &self.comparisons {
            problems.extend(comparison.problems(&ids));
        }
        problems
    }

    /// Writes `report.json` to `path` atomically (a temporary file renamed into place).
    ///
    /// # Errors
    /// Any I/O error; the target is left untouched on failure.
    pub fn write_json(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        write_atomic(path, text.as_bytes())
    }

    /// The human report: datasets, experiments with their AUC tables and figures, claims.
    /// `figures` maps an experiment id to the SVG file names to embed.
    pub fn to_markdown(&self, figures: &BTreeMap<String, Vec<String>>) -> String {
        self.to_markdown_with_intro(figures, "")
    }

    /// As [`Report::to_markdown`], with `intro` (Markdown) under the title.
    pub fn to_markdown_with_intro(
        &self,
        figures: &BTreeMap<String, Vec<String>>,
        intro: &str,
    ) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# {} — report\n", self.paper);
        if !intro.trim().is_empty() {
            let _ = writeln!(md, "{}\n", intro.trim_end());
        }
        let _ = writeln!(
            md,
            "recs {}{} · seed {} · {} run\n",
            self.version,
            self.commit.as_ref().map_or(String::new(), |c| format!(" (commit {c})")),
            self.seed,
            if self.quick { "quick" } else { "full" }
        );
        let _ =
            writeln!(md, "## Datasets\n\n| name | users | items | events |\n|---|---:|---:|---:|");
        for d in &self.datasets {
            let _ = writeln!(md, "| {} | {} | {} | {} |", d.name, d.users, d.items, d.events);
        }
        for e in &self.experiments {
            let _ = writeln!(
                md,
                "\n## {}\n\n{} · mode `{}` · {} candidates, {} positives\n",
                e.id, e.protocol, e.mode, e.candidates, e.positives
            );
            if !e.curves.is_empty() {
                let _ = writeln!(
                    md,
                    "| curve | model | AUC | pAUC(FPR ≤ 0.3) | pAUC / 0.3 |\n|---|---|---:|---:|---:|"
                );
                for c in &e.curves {
                    let kind = match c.kind {
                        CurveKind::Roc => "ROC",
                        CurveKind::Croc => "CROC",
                    };
                    let _ = writeln!(
                        md,
                        "| {kind} | {} | {:.4} | {:.4} | {:.4} |",
                        escape(&c.model),
                        c.auc,
                        c.pauc_0_3,
                        c.pauc_0_3 / 0.3
                    );
                }
            }
            for t in &e.tables {
                let columns: Vec<String> = t.columns.iter().map(|c| escape(c)).collect();
                let _ = writeln!(
                    md,
                    "\n**{}**\n\n| {} |\n|{}",
                    escape(&t.name),
                    columns.join(" | "),
                    "---|".repeat(t.columns.len())
                );
                for row in &t.rows {
                    let cells: Vec<String> = row.iter().map(render_cell).collect();
                    let _ = writeln!(md, "| {} |", cells.join(" | "));
                }
            }
            for comparison in self.comparisons.iter().filter(|c| c.experiment == e.id) {
                md.push_str(&comparison.to_markdown());
            }
            for file in figures.get(&e.id).into_iter().flatten() {
                let _ = writeln!(md, "\n![{}]({file})", e.id);
            }
        }
        md.push('\n');
        md.push_str(&claims_markdown(&self.claims, "##"));
        md
    }
}

/// The claims as Markdown under a heading of level `level` (`##`), with all their evidence:
/// a table of claims (claim, the paper's words, what we measured, provenance, verdict), an
/// evidence table with one row per test of every reading (and of its sensitivity ends and
/// its placebo), and a table of every choice with who fixed it.
pub fn claims_markdown(claims: &[Claim], level: &str) -> String {
    let mut md = claims_table(claims, level);
    let _ = writeln!(
        md,
        "\n{level}# Evidence\n\nOne row per test; a reading holds when all its tests hold. The \
         rule is fixed before the result: the test holds when the whole 95% interval of the \
         effect lies on the claimed side of the tolerance, fails when it excludes the claimed \
         effect, and is inconclusive otherwise. Rows marked *at …* run the reading's tests at \
         an end of a choice's range; rows marked *placebo* run them on a model that cannot \
         carry the claimed signal.\n\n\
         | claim | reading | test | rule | effect [95% interval] | test verdict | reading verdict |\n\
         |---|---|---|---|---|---|---|"
    );
    for c in claims {
        for r in &c.readings {
            let name = reading_label(r);
            let reading_verdict = format!("**{}** ({})", r.verdict, escape(&r.reason()));
            if r.tests.is_empty() {
                let _ = writeln!(
                    md,
                    "| {} | {} | – | – | – | – | {reading_verdict} |",
                    c.id,
                    escape(&name)
                );
            }
            let mut rows: Vec<(String, &Test)> =
                r.tests.iter().map(|t| (String::new(), t)).collect();
            for s in &r.sensitivity {
                // Ends of another procedure are marked: they are shown and do not decide.
                let shown = if s.decides() { "" } else { "shown, not deciding: " };
                for e in &s.ends {
                    rows.extend(e.tests.iter().map(|t| (format!("{shown}at {}: ", e.value), t)));
                    if let Some(p) = &e.placebo {
                        let prefix = format!("{shown}at {}: placebo {}: ", e.value, p.model);
                        rows.extend(p.tests.iter().map(|t| (prefix.clone(), t)));
                    }
                }
            }
            if let Some(p) = &r.placebo {
                rows.extend(p.tests.iter().map(|t| (format!("placebo {}: ", p.model), t)));
            }
            for (prefix, t) in rows {
                let _ = writeln!(
                    md,
                    "| {} | {} | {}{} | {} | {} | {} ({}) | {reading_verdict} |",
                    c.id,
                    escape(&name),
                    escape(&prefix),
                    escape(&t.subject),
                    t.rule_short(),
                    t.effect.describe(4),
                    t.verdict,
                    t.reason()
                );
            }
        }
    }
    md.push_str(&choices_table(claims, level));
    md
}

/// A reading's name as a table shows it: with `(the paper's)` or `(post hoc)`.
fn reading_label(r: &Reading) -> String {
    match (r.primary, r.post_hoc) {
        (true, _) => format!("{} (the paper's)", r.name),
        (false, true) => format!("{} (post hoc: shown, not deciding)", r.name),
        (false, false) => r.name.clone(),
    }
}

/// The table of claims: id, claim, the paper's words, what we measured, provenance,
/// verdict.
fn claims_table(claims: &[Claim], level: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "{level} Claims\n\n| id | claim | the paper | measured | who chose | verdict |\n\
         |---|---|---|---|---|---|"
    );
    for c in claims {
        let _ = writeln!(
            md,
            "| {} | {} | {}: {} | {} | {} | {} |",
            c.id,
            escape(&c.statement),
            escape(&c.paper.section),
            escape(&c.paper.words),
            escape(&c.measured),
            escape(&c.provenance()),
            escape(&c.verdict_text())
        );
    }
    md
}

/// Every choice of every reading with who fixed it.
fn choices_table(claims: &[Claim], level: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "\n{level}# Who chose what\n\nEvery choice a reading rests on: fixed by the paper's \
         text (its words), by its code (file and line), or by us, before the results or after \
         a result was seen (then the reading is post hoc and decides nothing).\n\n\
         | claim | reading | choice | kind | value | fixed by | words, line or reason |\n\
         |---|---|---|---|---|---|---|"
    );
    for c in claims {
        for r in &c.readings {
            for choice in &r.choices {
                let detail = match &choice.by {
                    Source::PaperText { words, .. } => format!("“{words}”"),
                    Source::PaperCode { file, line } => format!("{file}, line {line}"),
                    Source::OursBefore { why } => why.clone(),
                    Source::OursAfter { why, seen } => format!("{why} (named after: {seen})"),
                };
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    c.id,
                    escape(&r.name),
                    escape(&choice.what),
                    choice.kind,
                    escape(&choice.value),
                    escape(&choice.by.short()),
                    escape(&detail)
                );
            }
        }
    }
    if let Some(reasons) = Some(
        claims
            .iter()
            .filter_map(|c| c.no_placebo.as_ref().map(|why| format!("- {}: {why}", c.id)))
            .collect::<Vec<_>>(),
    )
    .filter(|r| !r.is_empty())
    {
        let _ = writeln!(md, "\nClaims without a placebo, and why none applies:\n");
        for line in reasons {
            let _ = writeln!(md, "{line}");
        }
    }
    md
}

/// The one-screen summary of the claims: each claim's verdict, the one-line reason, the
/// number that decides it and who chose what.
pub fn claims_summary_markdown(claims: &[Claim], level: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "{level} Summary\n\n| id | claim | verdict | why | key number [95% interval] | who chose |\n\
         |---|---|---|---|---|---|"
    );
    for c in claims {
        let deciding = c.deciding();
        let key = deciding
            .first()
            .and_then(|r| r.key_test())
            .map_or("–".to_string(), |(subject, t)| format!("{subject}: {}", t.effect.short(4)));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            c.id,
            escape(&c.statement),
            escape(&c.verdict_text()),
            escape(&c.reason()),
            escape(&key),
            escape(&c.provenance())
        );
    }
    md
}

/// The claims for a reproduction's page: the claims table, then one row per reading
/// (its provenance, its verdict and why, and the test that decides it); the evidence test
/// by test is in the run's `report.md`.
pub fn claims_page_markdown(claims: &[Claim], level: &str) -> String {
    let mut md = claims_table(claims, level);
    let _ = writeln!(
        md,
        "\n{level}# Readings\n\nOne row per reading: the choices it rests on and who fixed \
         them, its verdict and why, and the test that decides it (the first that fails, else \
         the first that does not hold). A reading decides its claim unless it is post hoc; the \
         paper's reading, when there is one, decides alone. Every test, every end of a \
         choice's range and every placebo are in the run's report.\n\n\
         | claim | reading | who chose | deciding test | effect [95% interval] | verdict and why |\n\
         |---|---|---|---|---|---|"
    );
    for c in claims {
        for r in &c.readings {
            let (subject, effect) =
                r.decisive_test().map_or(("–".to_string(), "–".to_string()), |t| {
                    (format!("{} ({})", t.subject, t.rule_short()), t.effect.describe(4))
                });
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | **{}** ({}) |",
                c.id,
                escape(&reading_label(r)),
                escape(&r.provenance()),
                escape(&subject),
                escape(&effect),
                r.verdict,
                escape(&r.reason())
            );
        }
    }
    md
}

/// Escapes the table separator so free text cannot break a Markdown table.
fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render_cell(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Number(n) => match n.as_f64() {
            // A whole number stored as a float (a count, a cut-off) reads as one.
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
            Some(f) if n.is_f64() => format!("{f:.4}"),
            _ => n.to_string(),
        },
        serde_json::Value::String(s) => escape(s),
        serde_json::Value::Null => "–".to_string(),
        other => other.to_string(),
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so
/// a reader never sees a half-written file.
///
/// # Errors
/// Any I/O error; the temporary file is removed on failure.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().ok_or_else(|| io::Error::other("path has no file name"))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::tests::interval;

    fn claim_with(readings: Vec<Reading>) -> Claim {
        Claim::new("S1", "s", Quote { section: "§1".into(), words: "p".into() }, "m", readings)
    }

    fn report_with(points: Vec<[f64; 2]>) -> Report {
        Report {
            experiments: vec![Experiment {
                id: "e".into(),
                protocol: "p".into(),
                mode: "implicit".into(),
                candidates: 4,
                positives: 2,
                curves: vec![Curve::from_points(CurveKind::Roc, "m", points)],
                tables: vec![],
            }],
            claims: vec![claim_with(vec![
                Reading::new("r", vec![Test::new("a − b", Rule::above(0.01), Effect::exact(0.2))])
                    .primary(),
            ])],
            ..Report::new("test", 1, true)
        }
    }

    #[test]
    fn a_well_formed_report_validates_and_round_trips() {
        let report = report_with(vec![[0.0, 0.0], [0.25, 0.5], [1.0, 1.0]]);
        assert_eq!(report.validate(), Vec::<String>::new());
        let text = serde_json::to_string(&report).unwrap();
        assert!(text.contains("\"kind\":\"roc\""));
        let back: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(back, report);
    }

    #[test]
    fn malformed_curves_are_reported() {
        let mut report = report_with(vec![[0.0, 0.1], [0.6, 0.5], [0.5, 0.9]]);
        report.experiments[0].curves[0].auc = 0.9;
        let problems = report.validate();
        assert!(problems.iter().any(|p| p.contains("is not (0, 0)")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("is not (1, 1)")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("backwards")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("differs from the trapezoid")), "{problems:?}");
    }

    #[test]
    fn markdown_lists_curves_and_claims() {
        let report = report_with(vec![[0.0, 0.0], [1.0, 1.0]]);
        let figures = BTreeMap::from([("e".to_string(), vec!["e-roc.svg".to_string()])]);
        let md = report.to_markdown(&figures);
        assert!(md.contains("| ROC | m | 0.5000 | 0.0450 | 0.1500 |"), "{md}");
        assert!(md.contains("![e](e-roc.svg)"));
        assert!(md.contains("| S1 | s | §1: p | m | ours: tolerance | **holds** |"), "{md}");
        assert!(md.contains("| S1 | r | the rule's tolerance | tolerance |"), "{md}");
        assert!(
            md.contains("| S1 | r (the paper's) | a − b | above +0.01 | +0.2000 (exact) | holds"),
            "{md}"
        );
    }

    #[test]
    fn each_verdict_is_reachable_from_readings() {
        let test = |low, high| Test::new("d", Rule::above(0.01), interval(low, high));
        let holds = Reading::new("h", vec![test(0.05, 0.08)]);
        let fails = Reading::new("f", vec![test(-0.03, 0.0)]);
        let unsure = Reading::new("i", vec![test(0.0, 0.03)]);
        let bound =
            Reading::untestable("b", UntestableCause::Bound, "recall is 1 at every k", vec![]);
        assert_eq!(claim_with(vec![holds.clone()]).verdict, Verdict::Holds);
        assert_eq!(claim_with(vec![fails.clone()]).verdict, Verdict::Fails);
        assert_eq!(claim_with(vec![unsure.clone()]).verdict, Verdict::Inconclusive);
        assert_eq!(claim_with(vec![bound.clone()]).verdict, Verdict::Untestable);
        assert_eq!(
            claim_with(vec![holds.clone(), fails.clone()]).verdict,
            Verdict::DependsOnReading
        );
        // A reading the paper fixes decides; the others are sensitivity.
        assert_eq!(claim_with(vec![holds.clone(), fails.primary()]).verdict, Verdict::Fails);
        assert_eq!(claim_with(vec![holds.clone(), holds]).verdict, Verdict::Holds);
        for verdict in [unsure, bound] {
            assert!(claim_with(vec![verdict]).problems().is_empty());
        }
    }

    #[test]
    fn claims_without_their_evidence_are_refused() {
        let mut report = report_with(vec![[0.0, 0.0], [1.0, 1.0]]);
        report.claims[0].paper.section.clear();
        report.claims[0].readings[0].tests[0].verdict = Verdict::Fails;
        report.claims.push(claim_with(vec![]));
        report.claims[1].id = "S2".into();
        report.claims[1].verdict = Verdict::Holds;
        report.claims.push(claim_with(vec![Reading::untestable(
            "u",
            UntestableCause::Construction,
            " ",
            vec![],
        )]));
        report.claims[2].id = "S3".into();
        let problems = report.validate().join("\n");
        for needle in [
            "claim S1: paper.section is empty",
            "verdict fails where the rule gives holds",
            "claim S1: reading `r`: verdict holds where its tests give depends on reading",
            "claim S2: no reading",
            "claim S2: verdict holds where its readings give untestable",
            "claim S3: reading `u`: untestable without saying why",
        ] {
            assert!(problems.contains(needle), "{needle} not in\n{problems}");
        }
    }

    fn text_choice() -> Choice {
        Choice::text(ChoiceKind::Protocol, "test cases", "the training people", "§5.2", "w")
    }

    #[test]
    fn a_reading_with_a_tolerance_carries_it_as_a_choice_checked_at_half_and_twice() {
        let r = Reading::new("r", vec![Test::new("d", Rule::above(0.01), interval(0.015, 0.03))]);
        assert_eq!(r.choices, vec![tolerance_choice()]);
        assert_eq!(r.sensitivity.len(), 1);
        let ends: Vec<Verdict> = r.sensitivity[0].ends.iter().map(|e| e.verdict).collect();
        // Above +0.005: holds; above +0.02: inconclusive. The tolerance matters.
        assert_eq!(ends, [Verdict::Holds, Verdict::Inconclusive]);
        assert_eq!(r.verdict, Verdict::DependsOnReading);
        assert_eq!(r.flipping_knobs(), [TOLERANCE]);
        assert_eq!(
            r.reason(),
            "holds as run, but flips with the rule's tolerance (1 of 2 ends: inconclusive)"
        );
        let both = r
            .clone()
            .with_choices([Choice::ours(ChoiceKind::TieOrder, "ties", "half", "w")])
            .with_sensitivity(Sensitivity::knob(
                "ties",
                vec![End::new(
                    "first",
                    vec![Test::new("d", Rule::above(0.01), interval(-0.2, -0.1))],
                )],
            ));
        assert_eq!(
            both.reason(),
            "holds as run, but flips with the rule's tolerance (1 of 2 ends: inconclusive); \
             ties (1 of 1 end: fails)"
        );
        // Another procedure, named after a result, is shown and never decides.
        let shown = Reading::new("s", vec![Test::new("d", Rule::above(0.01), interval(0.1, 0.2))])
            .with_sensitivity(Sensitivity::shown(
                "other fits",
                vec![End::new(
                    "plain EM",
                    vec![Test::new("d", Rule::above(0.01), interval(-0.2, -0.1))],
                )],
            ));
        assert_eq!(shown.verdict, Verdict::Holds);
        assert!(shown.flipping_knobs().is_empty());
        assert_eq!(shown.reason(), "the interval lies above +0.01");
        assert!(shown.key_test().unwrap().0 == "d", "{:?}", shown.key_test());
        // Far from the tolerance, nothing flips; without one there is nothing to vary.
        let clear = Reading::new("c", vec![Test::new("d", Rule::above(0.01), interval(0.1, 0.2))]);
        assert_eq!(clear.verdict, Verdict::Holds);
        let exact = Reading::new("e", vec![Test::new("d", Rule::within(0.0), Effect::exact(0.0))]);
        assert!(exact.choices.is_empty() && exact.sensitivity.is_empty());
    }

    #[test]
    fn a_knob_that_flips_makes_the_reading_depend_on_it_and_noise_makes_it_inconclusive() {
        let test = |low, high| Test::new("d", Rule::above(0.0), interval(low, high));
        let tie = Choice::ours(ChoiceKind::TieOrder, "tie order", "half", "expectation");
        let knob = Sensitivity::knob(
            "tie order",
            vec![
                End::new("positives first", vec![test(0.1, 0.2)]),
                End::new("last", vec![test(-0.2, -0.1)]),
            ],
        );
        let r = Reading::new("r", vec![test(0.1, 0.2)]).with_choices([tie.clone()]);
        assert_eq!(r.verdict, Verdict::Holds);
        let r = r.with_sensitivity(knob);
        assert_eq!(r.verdict, Verdict::DependsOnReading);
        let noisy = Sensitivity::partitions(
            "user partition",
            vec![End::new("second", vec![test(-0.05, 0.2)])],
        );
        let r = r.with_sensitivity(noisy);
        assert_eq!(r.verdict, Verdict::Inconclusive, "noise outranks a knob");
        let claim = claim_with(vec![r]);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
    }

    #[test]
    fn a_placebo_that_passes_makes_the_reading_untestable_and_says_so() {
        let holds = Test::new("a − b", Rule::above(0.0), interval(0.1, 0.2));
        let placebo =
            Placebo::new("item popularity", "it ignores the history", vec![holds.clone()]);
        let r = Reading::new("r", vec![holds.clone()]).with_placebo(placebo);
        assert_eq!(r.verdict, Verdict::Untestable);
        assert!(r.reason().contains("placebo item popularity passes"), "{}", r.reason());
        let fails = Test::new("p − b", Rule::above(0.0), interval(-0.2, -0.1));
        let r = Reading::new("r", vec![holds.clone()]).with_placebo(Placebo::new(
            "p",
            "w",
            vec![fails.clone()],
        ));
        assert_eq!(r.verdict, Verdict::Holds);
        assert!(!r.reason().contains("placebo"), "{}", r.reason());
        // A reading that fails where the placebo fails too says so.
        let failing = Reading::new("r", vec![fails.clone()]).with_placebo(Placebo::new(
            "p",
            "w",
            vec![fails.clone()],
        ));
        assert_eq!(failing.verdict, Verdict::Fails);
        assert!(failing.reason().ends_with("; the placebo p fails too"), "{}", failing.reason());
        // A reading that fails where the placebo holds back (inconclusive) does not.
        let unclear = Test::new("p − b", Rule::above(0.0), interval(-0.1, 0.1));
        let r = Reading::new("r", vec![fails.clone()]).with_placebo(Placebo::new(
            "p",
            "w",
            vec![unclear],
        ));
        assert!(!r.reason().contains("placebo"), "{}", r.reason());
        let r = Reading::new("r", vec![holds.clone()]).with_placebo(Placebo::new(
            "p",
            "w",
            vec![fails],
        ));
        // A report whose reading hides the placebo's pass is refused.
        let mut tampered = claim_with(vec![r]);
        tampered.readings[0].placebo.as_mut().unwrap().verdict = Verdict::Holds;
        assert!(tampered.problems().join("\n").contains("the placebo p: verdict holds"));
    }

    #[test]
    fn an_end_whose_placebo_passes_is_untestable_there() {
        let holds = Test::new("a − b", Rule::above(0.0), interval(0.1, 0.2));
        let fails = Test::new("a − b", Rule::above(0.0), interval(-0.2, -0.1));
        let placebo = |test: &Test| Placebo::new("random", "no signal", vec![test.clone()]);
        // The model rises at the end, but so does the placebo: the end measures the protocol.
        let end = End::new("top |I_hidden|", vec![holds.clone()]).with_placebo(placebo(&holds));
        assert_eq!(end.verdict, Verdict::Untestable);
        let kept = End::new("top 5", vec![holds.clone()]).with_placebo(placebo(&fails));
        assert_eq!(kept.verdict, Verdict::Holds);
        // A reading that fails as run and holds at an end with a failing placebo depends
        // on the reading; an end its placebo makes untestable flips it too, and the key
        // test is the placebo's there.
        for (end, key) in [(kept, "a − b (at top 5)"), (end, "a − b (at top |I_hidden|)")] {
            let r = Reading::new("r", vec![fails.clone()])
                .with_choices([Choice::ours(ChoiceKind::Comparison, "list length", "top 10", "w")])
                .with_sensitivity(Sensitivity::knob("list length", vec![end]));
            assert_eq!(r.verdict, Verdict::DependsOnReading);
            assert_eq!(r.key_test().unwrap().0, key);
            let claim = claim_with(vec![r]);
            assert!(claim.problems().is_empty(), "{:?}", claim.problems());
            // The end's placebo is written in the evidence table.
            let mut report = report_with(vec![[0.0, 0.0], [1.0, 1.0]]);
            report.claims = vec![claim];
            assert!(report.to_markdown(&BTreeMap::new()).contains("placebo random: "));
        }
        // A report whose end hides its placebo's pass is refused.
        let mut tampered =
            claim_with(vec![Reading::new("r", vec![fails.clone()]).with_sensitivity(
                Sensitivity::knob(
                    "list length",
                    vec![End::new("top 5", vec![holds.clone()]).with_placebo(placebo(&holds))],
                ),
            )]);
        tampered.readings[0].sensitivity[0].ends[0].verdict = Verdict::Holds;
        let problems = tampered.problems().join("\n");
        assert!(problems.contains("where its tests and placebo give untestable"), "{problems}");
        // Without a placebo nothing is written: earlier reports read and write as before.
        let json = serde_json::to_string(&End::new("e", vec![holds])).unwrap();
        assert!(!json.contains("placebo"), "{json}");
        let back: End = serde_json::from_str(&json).unwrap();
        assert!(back.placebo.is_none());
    }

    #[test]
    fn post_hoc_readings_never_decide() {
        let test = |low, high| Test::new("d", Rule::above(0.0), interval(low, high));
        let before = Reading::new("before", vec![test(-0.2, -0.1)]).with_choices([text_choice()]);
        let after = Reading::new("after", vec![test(0.1, 0.2)]).with_choices([Choice::post_hoc(
            ChoiceKind::Population,
            "users",
            "more than 100 ratings",
            "a population where it shows",
            "the earlier rule failed",
        )]);
        assert!(after.post_hoc && !before.post_hoc);
        let claim = claim_with(vec![before.clone(), after.clone().primary()]);
        assert_eq!(claim.verdict, Verdict::Fails, "a post-hoc primary does not decide");
        assert!(
            claim.provenance_problems().iter().any(|p| p.contains("named after a result")),
            "{:?}",
            claim.provenance_problems()
        );
        assert_eq!(claim_with(vec![after]).verdict, Verdict::Inconclusive);
        let md = claims_markdown(&[claim], "##");
        assert!(md.contains("(post hoc: shown, not deciding)") || md.contains("(the paper's)"));
        assert!(md.contains(
            "| S1 | after | users | population | more than 100 ratings | ours, post hoc |"
        ));
    }

    #[test]
    fn the_papers_tag_needs_the_papers_text_or_a_harmless_choice_of_ours() {
        let test = Test::new("d", Rule::above(0.01), interval(0.1, 0.2));
        // Only the tolerance (ours, shown harmless): no citation of the paper.
        let bare = Reading::new("r", vec![test.clone()]).primary();
        let problems = claim_with(vec![bare]).without_placebo("n/a").provenance_problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("without citing the paper's text or code"));
        let cited = Reading::new("r", vec![test.clone()]).with_choices([text_choice()]).primary();
        assert!(
            claim_with(vec![cited.clone()]).without_placebo("n/a").provenance_problems().is_empty()
        );
        // A choice of ours without a sensitivity is not shown harmless.
        let fit = Choice::ours(ChoiceKind::ModelFit, "tempering", "β = 0.8", "a middle value");
        let ours = cited.clone().with_choices([fit]);
        let problems = claim_with(vec![ours]).without_placebo("n/a").provenance_problems();
        assert!(problems[0].contains("`tempering` is ours and not shown"), "{problems:?}");
        // Every claim says which placebo ran, or why none applies.
        let problems = claim_with(vec![cited]).provenance_problems();
        assert_eq!(problems, ["claim S1: no placebo and no reason why none applies"]);
        // Incomplete citations are named.
        let blank = Choice::code(ChoiceKind::Threshold, "cut", "0.95", "", 0);
        let problems = blank.problems().join("\n");
        assert!(problems.contains("the file is empty") && problems.contains("the line is 0"));
        // No recorded choice at all.
        let none = Reading { choices: vec![], ..Reading::new("n", vec![test]) };
        assert!(none.provenance_problems()[0].contains("records no choice"));
    }

    #[test]
    fn the_summary_gives_each_claim_its_verdict_reason_number_and_provenance() {
        let r = Reading::new("r", vec![Test::new("a − b", Rule::above(0.01), interval(0.1, 0.2))])
            .with_choices([text_choice()]);
        let md = claims_summary_markdown(&[claim_with(vec![r])], "##");
        assert!(
            md.contains("| S1 | s | **holds** | the interval lies above +0.01 | a − b: +0.1500 [+0.1000, +0.2000] (10 reps) | paper: protocol; ours: tolerance |"),
            "{md}"
        );
        let page = claims_page_markdown(&[claim_with(vec![Reading::new("q", vec![])])], "##");
        assert!(page.contains("| S1 | q | not recorded | – | – |"), "{page}");
    }

    #[test]
    fn the_key_number_of_a_reading_that_a_range_flips_is_taken_at_the_flipping_end() {
        let holds = Test::new("a − b", Rule::above(0.01), interval(0.1, 0.2));
        let r = Reading::new("r", vec![holds.clone()]);
        assert_eq!(r.key_test().unwrap().0, "a − b");
        let flipped = Test::new("a − b", Rule::above(0.01), interval(-0.2, -0.1));
        let r = r.with_sensitivity(Sensitivity::knob(
            "fit",
            vec![End::new("β = 1", vec![holds]), End::new("β = 0.6", vec![flipped])],
        ));
        let (subject, test) = r.key_test().unwrap();
        assert_eq!(subject, "a − b (at β = 0.6)");
        assert_eq!(test.verdict, Verdict::Fails);
        // At an end where a first test holds as before and a second moves to holding, the
        // key is the one that moved.
        let first = Test::new("c − d", Rule::above(0.01), interval(0.1, 0.2));
        let straddles = Test::new("e − f", Rule::above(0.01), interval(0.0, 0.2));
        let r =
            Reading::new("r", vec![first.clone(), straddles]).with_sensitivity(Sensitivity::knob(
                "fit",
                vec![End::new(
                    "β = 1",
                    vec![first, Test::new("e − f", Rule::above(0.01), interval(0.1, 0.3))],
                )],
            ));
        assert_eq!(r.key_test().unwrap().0, "e − f (at β = 1)");
    }

    /// A claim whose every reading is post hoc lists their choices and says none decides.
    #[test]
    fn a_claim_of_post_hoc_readings_only_still_says_who_chose() {
        let reading = Reading::new("r", vec![Test::new("a", Rule::above(0.0), interval(0.1, 0.2))])
            .with_choices([Choice::post_hoc(
                ChoiceKind::Comparison,
                "what is compared",
                "a against b",
                "why",
                "a result had been seen",
            )]);
        let claim = claim_with(vec![reading]);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert_eq!(
            claim.provenance(),
            "ours post hoc: comparison; post-hoc readings only, none deciding"
        );
    }

    #[test]
    fn a_claim_that_depends_on_reading_counts_its_readings_by_outcome() {
        let reading = |name: &str, low: f64| {
            Reading::new(name, vec![Test::new("d", Rule::above(0.01), interval(low, low + 0.1))])
        };
        let claim = claim_with(vec![
            reading("a", 0.1),
            reading("b", -0.5),
            reading("c", 0.2),
            reading("d", 0.015),
        ]);
        assert_eq!(claim.verdict, Verdict::DependsOnReading);
        assert_eq!(
            claim.reason(),
            "the 4 readings differ (holds: 2; fails: 1; flips with the rule's tolerance: 1)"
        );
    }

    #[test]
    fn whole_numbers_stored_as_floats_print_as_integers() {
        assert_eq!(render_cell(&serde_json::json!(1.0)), "1");
        assert_eq!(render_cell(&serde_json::json!(199.0)), "199");
        assert_eq!(render_cell(&serde_json::json!(0.25)), "0.2500");
        assert_eq!(render_cell(&serde_json::json!(7)), "7");
    }

    #[test]
    fn atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out").join("report.json");
        report_with(vec![[0.0, 0.0], [1.0, 1.0]]).write_json(&path).unwrap();
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
    }
}
