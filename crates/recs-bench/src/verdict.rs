//! The verdict model: how a claim is judged on measured results.
//!
//! A claim is judged under one or more *readings* (the choices a paper leaves open, or
//! fixes, named). Under each reading it is one or more *tests*; a test compares a measured
//! [`Effect`] (a difference, with its 95% interval and the repetitions behind it) with a
//! [`Rule`] fixed before the result: a [`Direction`] and a tolerance. The one decision
//! rule ([`Rule::decide`]) is written here and nowhere else:
//!
//! - **holds** when the whole interval lies beyond the tolerance on the claimed side;
//! - **fails** when the whole interval excludes the claimed effect (it lies on the other
//!   side of the tolerance);
//! - **inconclusive** otherwise: the data cannot decide at that tolerance.
//!
//! A reading may instead be **untestable**: the measure sits at a bound, or the set-up
//! makes the claim true or false by construction ([`crate::report::Untestable`] says which). A claim's
//! verdict is its primary reading's when one reading is the paper's own; otherwise the
//! readings' common verdict, or **depends on reading** when they differ.
//!
//! A test may apply only under a *premise*, itself a test ([`Test::given`]): "if ROC puts
//! a over b, CROC does not put b over a". Its verdict is the implication's in three-valued
//! logic: the consequence's when the premise holds, holds when the premise fails (nothing
//! is claimed), and when the premise is inconclusive, holds only if the consequence holds
//! (it then holds either way) and is inconclusive otherwise. A premise the data cannot
//! settle never makes a test fail.
//!
//! An effect measured once has no interval. When the computation is deterministic on
//! fixed data the point is exact ([`IntervalKind::Exact`]) and the rule applies to it;
//! one draw of a random computation ([`IntervalKind::Single`]) decides nothing, so the
//! rule calls it inconclusive rather than read a bare value.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The five verdicts a claim (or one reading or test of it) can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The interval lies beyond the tolerance on the claimed side.
    Holds,
    /// The interval excludes the claimed effect.
    Fails,
    /// The data cannot decide at the stated tolerance.
    Inconclusive,
    /// The measure sits at a bound, or the set-up decides the claim by construction.
    Untestable,
    /// The paper leaves a choice open and the readings' verdicts differ.
    DependsOnReading,
}

impl Verdict {
    /// The verdict as a page writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "fails",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Untestable => "untestable",
            Verdict::DependsOnReading => "depends on reading",
        }
    }

    /// The verdict of "if `premise` then `consequence`" (see the module documentation):
    /// the consequence's when the premise holds; holds when it fails; when it is
    /// inconclusive (or untestable), holds if the consequence holds, else inconclusive.
    pub fn implied_by(premise: Verdict, consequence: Verdict) -> Verdict {
        match premise {
            Verdict::Holds => consequence,
            Verdict::Fails => Verdict::Holds,
            _ if consequence == Verdict::Holds => Verdict::Holds,
            _ => Verdict::Inconclusive,
        }
    }

    /// The verdict of a claim that asserts every one of `parts`: fails if one fails,
    /// holds if all hold, untestable if all are, inconclusive otherwise. An empty list
    /// is untestable (nothing was tested).
    pub fn all(parts: impl IntoIterator<Item = Verdict>) -> Verdict {
        let parts: Vec<Verdict> = parts.into_iter().collect();
        if parts.is_empty() || parts.iter().all(|v| *v == Verdict::Untestable) {
            Verdict::Untestable
        } else if parts.contains(&Verdict::Fails) {
            Verdict::Fails
        } else if parts.iter().all(|v| *v == Verdict::Holds) {
            Verdict::Holds
        } else {
            Verdict::Inconclusive
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which side of zero a claim puts an effect, with the tolerance `τ` of its [`Rule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// The effect exceeds `+τ` ("A is above B").
    Above,
    /// The effect is below `−τ` ("A is below B").
    Below,
    /// The effect lies in `[−τ, +τ]` ("A and B are equal within tolerance").
    Within,
    /// The effect is not below `−τ` ("A is at least as good as B").
    NotBelow,
    /// The effect is not above `+τ` ("A is at most as good as B").
    NotAbove,
}

/// How an effect's interval was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalKind {
    /// One measurement of a computation with no random choice on fixed data: the
    /// interval is the point, and exact.
    Exact,
    /// One draw of a computation that has random choices: no interval; a rule decides
    /// nothing from it.
    Single,
    /// Student t (95%) over independent repetitions (independent draws of the split, the
    /// hidden items or the model's random choices).
    Independent,
    /// Student t (95%) over dependent repetitions (the folds of one partition, nested
    /// draws): it spreads over the folds' test users, but the partition itself is one draw
    /// whose variation it does not hold; a [`crate::provenance::Sensitivity::partitions`]
    /// over other partitions does.
    Dependent,
    /// The central 95% of independent draws: where a single draw falls, not where their
    /// mean lies.
    Range,
    /// Student t over independent repetitions, one of a family of `family` intervals that
    /// hold together with 95% confidence (Bonferroni: each at level `1 − 0.05 / family`):
    /// for a claim that some member of a family holds, chosen after the fact among them.
    Simultaneous {
        /// The number of intervals of the family.
        family: usize,
    },
}

impl IntervalKind {
    /// The kind in words, for a page.
    pub fn describe(self) -> String {
        match self {
            IntervalKind::Exact => "exact (deterministic on fixed data)".into(),
            IntervalKind::Single => "one draw, no interval".into(),
            IntervalKind::Independent => "95% t over independent repetitions".into(),
            IntervalKind::Dependent => {
                "95% t over the folds of one partition (not over partitions)".into()
            }
            IntervalKind::Range => "central 95% of independent draws".into(),
            IntervalKind::Simultaneous { family } => format!(
                "t over independent repetitions, simultaneous 95% over {family} intervals \
                 (each at {})",
                simultaneous_level_text(family)
            ),
        }
    }

    /// The confidence level of one interval of this kind: `1 − 0.05 / family` for a
    /// simultaneous family, 0.95 otherwise.
    pub fn level(self) -> f64 {
        match self {
            IntervalKind::Simultaneous { family } => 1.0 - 0.05 / family.max(1) as f64,
            _ => 0.95,
        }
    }
}

/// `1 − 0.05 / family` as a percentage for a page (`99.5%` for a family of 10).
fn simultaneous_level_text(family: usize) -> String {
    let percent = 100.0 * IntervalKind::Simultaneous { family }.level();
    let text = format!("{percent:.4}");
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// A measured effect: its estimate, its 95% interval and what stands behind it. An effect
/// without any value has `NaN` bounds, which JSON writes as `null` and reads back as `NaN`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Effect {
    /// The estimate (a mean over repetitions, or the one measurement).
    #[serde(deserialize_with = "nan_if_null")]
    pub estimate: f64,
    /// Lower end of the 95% interval.
    #[serde(deserialize_with = "nan_if_null")]
    pub low: f64,
    /// Upper end of the 95% interval.
    #[serde(deserialize_with = "nan_if_null")]
    pub high: f64,
    /// Number of repetitions behind the estimate.
    pub repetitions: usize,
    /// How the interval was obtained.
    pub interval: IntervalKind,
}

/// A number, or `NaN` for JSON's `null` (how `serde_json` writes `NaN`).
fn nan_if_null<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
}

impl Effect {
    /// One exact measurement of a deterministic computation.
    pub fn exact(value: f64) -> Effect {
        Effect {
            estimate: value,
            low: value,
            high: value,
            repetitions: 1,
            interval: IntervalKind::Exact,
        }
    }

    /// The mean of `values` with its 95% Student t interval; `independent` says whether
    /// the repetitions are independent draws or dependent ones (folds of one split). A
    /// single value gives an effect of kind [`IntervalKind::Single`], or
    /// [`IntervalKind::Exact`] when `deterministic` says no random choice entered it.
    ///
    /// # Panics
    /// Never: `NaN` values are left out, and no values at all give a `NaN` estimate that
    /// every rule calls inconclusive.
    pub fn mean_of(values: &[f64], independent: bool, deterministic: bool) -> Effect {
        let finite: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
        match finite.as_slice() {
            [] => Effect {
                estimate: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
                repetitions: 0,
                interval: IntervalKind::Single,
            },
            [one] if deterministic => Effect::exact(*one),
            [one] => Effect { interval: IntervalKind::Single, ..Effect::exact(*one) },
            many => match recs_metrics::t_interval(many) {
                Ok(i) => Effect {
                    estimate: i.mean,
                    low: i.lower,
                    high: i.upper,
                    repetitions: i.n,
                    interval: if independent {
                        IntervalKind::Independent
                    } else {
                        IntervalKind::Dependent
                    },
                },
                Err(_) => Effect::exact(many[0]),
            },
        }
    }

    /// The mean of `values`, independent repetitions, with its Student t interval as one of
    /// a family of `family` that hold together with 95% confidence
    /// ([`IntervalKind::Simultaneous`]); fewer than two values are treated as by
    /// [`Effect::mean_of`].
    ///
    /// # Panics
    /// If `family` is 0.
    pub fn mean_of_simultaneous(values: &[f64], family: usize) -> Effect {
        assert!(family >= 1, "a family holds at least one interval");
        let finite: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
        if finite.len() < 2 {
            return Effect::mean_of(&finite, true, false);
        }
        let kind = IntervalKind::Simultaneous { family };
        match recs_stats::mean_interval(&finite, kind.level()) {
            Ok(i) => Effect {
                estimate: i.mean,
                low: i.lower,
                high: i.upper,
                repetitions: i.n,
                interval: kind,
            },
            Err(_) => Effect::exact(finite[0]),
        }
    }

    /// The paired difference `a − b` over repetitions (entries at the same index come
    /// from the same repetition); as [`Effect::mean_of`] on the differences.
    ///
    /// # Panics
    /// If `a` and `b` differ in length.
    pub fn paired(a: &[f64], b: &[f64], independent: bool, deterministic: bool) -> Effect {
        assert_eq!(a.len(), b.len(), "paired effects need one value of each side per repetition");
        let differences: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        Effect::mean_of(&differences, independent, deterministic)
    }

    /// The central 95% of `draws` (2.5% and 97.5% quantiles, linear interpolation) around
    /// their mean: where one draw falls.
    pub fn range_of(draws: &[f64]) -> Effect {
        let mut sorted: Vec<f64> = draws.iter().copied().filter(|v| !v.is_nan()).collect();
        sorted.sort_by(f64::total_cmp);
        if sorted.is_empty() {
            return Effect::mean_of(&[], true, false);
        }
        let quantile = |q: f64| {
            let at = q * (sorted.len() - 1) as f64;
            let (i, frac) = (at.floor() as usize, at - at.floor());
            let next = sorted[(i + 1).min(sorted.len() - 1)];
            sorted[i] + frac * (next - sorted[i])
        };
        Effect {
            estimate: sorted.iter().sum::<f64>() / sorted.len() as f64,
            low: quantile(0.025),
            high: quantile(0.975),
            repetitions: sorted.len(),
            interval: IntervalKind::Range,
        }
    }

    /// `self` shifted by `offset` (an effect against a reference value).
    pub fn minus(self, offset: f64) -> Effect {
        Effect {
            estimate: self.estimate - offset,
            low: self.low - offset,
            high: self.high - offset,
            ..self
        }
    }

    /// `estimate [low, high] (n, kind)` with `digits` decimals.
    pub fn describe(&self, digits: usize) -> String {
        match self.interval {
            IntervalKind::Exact => format!("{:+.digits$} (exact)", self.estimate),
            IntervalKind::Single => format!("{:+.digits$} (one draw, no interval)", self.estimate),
            kind => format!(
                "{:+.digits$} [{:+.digits$}, {:+.digits$}] ({} repetitions; {})",
                self.estimate,
                self.low,
                self.high,
                self.repetitions,
                kind.describe()
            ),
        }
    }

    /// `estimate [low, high]` with `digits` decimals, the kind in one word (a summary's
    /// cell; [`Effect::describe`] says how the interval was obtained).
    pub fn short(&self, digits: usize) -> String {
        match self.interval {
            IntervalKind::Exact => format!("{:+.digits$} (exact)", self.estimate),
            IntervalKind::Single => format!("{:+.digits$} (one draw)", self.estimate),
            IntervalKind::Range => format!(
                "{:+.digits$} [{:+.digits$}, {:+.digits$}] (range of {} draws)",
                self.estimate, self.low, self.high, self.repetitions
            ),
            _ => format!(
                "{:+.digits$} [{:+.digits$}, {:+.digits$}] ({} reps)",
                self.estimate, self.low, self.high, self.repetitions
            ),
        }
    }

    /// Whether the effect is well formed: finite ends in order around the estimate, and
    /// repetitions that fit its kind.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.estimate.is_nan() {
            // An undefined effect (nothing measured) is allowed; its rule is inconclusive.
            return out;
        }
        if !(self.low.is_finite() && self.high.is_finite() && self.estimate.is_finite()) {
            out.push("an end of the interval is not finite".into());
        } else if !(self.low <= self.estimate + 1e-12 && self.estimate <= self.high + 1e-12) {
            out.push(format!(
                "the estimate {} lies outside its interval [{}, {}]",
                self.estimate, self.low, self.high
            ));
        }
        let fits = match self.interval {
            IntervalKind::Exact | IntervalKind::Single => {
                self.repetitions == 1 && self.low == self.high
            }
            IntervalKind::Independent | IntervalKind::Dependent | IntervalKind::Range => {
                self.repetitions >= 2
            }
            IntervalKind::Simultaneous { family } => self.repetitions >= 2 && family >= 1,
        };
        if !fits {
            out.push(format!(
                "{} repetition(s) do not fit an interval of kind {:?}",
                self.repetitions, self.interval
            ));
        }
        out
    }
}

/// A decision rule fixed before the result: the claimed side and the tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// The side the claim puts the effect.
    pub direction: Direction,
    /// The tolerance `τ ≥ 0`: differences within it are not differences.
    pub tolerance: f64,
}

impl Rule {
    /// "The effect exceeds `+tolerance`."
    pub fn above(tolerance: f64) -> Rule {
        Rule { direction: Direction::Above, tolerance }
    }

    /// "The effect is below `−tolerance`."
    pub fn below(tolerance: f64) -> Rule {
        Rule { direction: Direction::Below, tolerance }
    }

    /// "The effect lies within `±tolerance`."
    pub fn within(tolerance: f64) -> Rule {
        Rule { direction: Direction::Within, tolerance }
    }

    /// "The effect is not below `−tolerance`."
    pub fn not_below(tolerance: f64) -> Rule {
        Rule { direction: Direction::NotBelow, tolerance }
    }

    /// "The effect is not above `+tolerance`."
    pub fn not_above(tolerance: f64) -> Rule {
        Rule { direction: Direction::NotAbove, tolerance }
    }

    /// The verdict of `effect` under this rule: [`Verdict::Holds`], [`Verdict::Fails`] or
    /// [`Verdict::Inconclusive`] (see the module documentation). An effect of one draw of
    /// a random computation, or an undefined one, is inconclusive.
    pub fn decide(&self, effect: &Effect) -> Verdict {
        if effect.interval == IntervalKind::Single || effect.estimate.is_nan() {
            return Verdict::Inconclusive;
        }
        let (low, high, t) = (effect.low, effect.high, self.tolerance);
        let (holds, fails) = match self.direction {
            Direction::Above => (low > t, high < t),
            Direction::Below => (high < -t, low > -t),
            Direction::Within => (-t <= low && high <= t, low > t || high < -t),
            Direction::NotBelow => (low >= -t, high < -t),
            Direction::NotAbove => (high <= t, low > t),
        };
        if holds {
            Verdict::Holds
        } else if fails {
            Verdict::Fails
        } else {
            Verdict::Inconclusive
        }
    }

    /// The rule in numbers: `holds when the interval lies above +0.001`.
    pub fn describe(&self) -> String {
        let t = self.tolerance;
        match self.direction {
            Direction::Above => {
                format!("holds when the interval lies above +{t}, fails when below it")
            }
            Direction::Below => {
                format!("holds when the interval lies below −{t}, fails when above it")
            }
            Direction::Within => {
                format!("holds when the interval lies within ±{t}, fails when wholly outside it")
            }
            Direction::NotBelow => {
                format!("holds when the interval lies at or above −{t}, fails when below it")
            }
            Direction::NotAbove => {
                format!("holds when the interval lies at or below +{t}, fails when above it")
            }
        }
    }

    /// The rule in short: `above +0.001`, `within ±0.02` (`above 0`, `equal to 0` without
    /// a tolerance).
    pub fn short(&self) -> String {
        let t = self.tolerance;
        let signed = |sign: char| if t == 0.0 { "0".to_string() } else { format!("{sign}{t}") };
        match self.direction {
            Direction::Above => format!("above {}", signed('+')),
            Direction::Below => format!("below {}", signed('−')),
            Direction::Within if t == 0.0 => "equal to 0".to_string(),
            Direction::Within => format!("within ±{t}"),
            Direction::NotBelow => format!("not below {}", signed('−')),
            Direction::NotAbove => format!("not above {}", signed('+')),
        }
    }

    /// Why `effect` got its verdict, in words (where the interval lies against `±τ`).
    pub fn reason(&self, effect: &Effect) -> String {
        if effect.estimate.is_nan() {
            return "nothing was measured".into();
        }
        if effect.interval == IntervalKind::Single {
            return "one draw of a random computation decides nothing".into();
        }
        let t = self.tolerance;
        let (low, high) = (effect.low, effect.high);
        // `+τ`, `−τ` and `±τ`, or `0` without a tolerance (never `−0` or `±0`).
        let (plus, minus, both) = if t == 0.0 {
            ("0".to_string(), "0".to_string(), "0".to_string())
        } else {
            (format!("+{t}"), format!("−{t}"), format!("±{t}"))
        };
        // Said against the bound the rule tests, so the words agree with the verdict.
        match self.direction {
            Direction::Within if t == 0.0 && low == 0.0 && high == 0.0 => {
                "the interval is 0: equal".to_string()
            }
            Direction::Within if -t <= low && high <= t => {
                format!("the interval lies within {both}: equal within tolerance")
            }
            Direction::Above | Direction::Within | Direction::NotAbove if low > t => {
                format!("the interval lies above {plus}")
            }
            Direction::Below | Direction::Within | Direction::NotBelow if high < -t => {
                format!("the interval lies below {minus}")
            }
            Direction::Above if high < t => format!("the interval lies below {plus}"),
            Direction::Below if low > -t => format!("the interval lies above {minus}"),
            Direction::NotAbove if high <= t => format!("the interval lies at or below {plus}"),
            Direction::NotBelow if low >= -t => format!("the interval lies at or above {minus}"),
            Direction::Above | Direction::NotAbove => format!("the interval straddles {plus}"),
            Direction::Below | Direction::NotBelow => format!("the interval straddles {minus}"),
            Direction::Within => format!("the interval reaches past {both}"),
        }
    }
}

/// One comparison: what is compared, the rule fixed before the result, the measured
/// effect, the premise it applies under (if any), and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Test {
    /// What the effect is (`CROC AUC − ROC AUC, aspect`).
    pub subject: String,
    /// The decision rule.
    pub rule: Rule,
    /// The measured effect with its interval.
    pub effect: Effect,
    /// [`Test::decide`]: the rule's verdict on `effect`, under the premise if there is one.
    pub verdict: Verdict,
    /// The test the claim makes this one conditional on ("if ROC puts a over b"); absent
    /// for a test that always applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Box<Test>>,
}

impl Test {
    /// A test of `effect` under `rule`; its verdict is the rule's.
    pub fn new(subject: impl Into<String>, rule: Rule, effect: Effect) -> Test {
        let verdict = rule.decide(&effect);
        Test { subject: subject.into(), rule, effect, verdict, given: None }
    }

    /// This test made conditional on `premise`: its verdict becomes
    /// [`Verdict::implied_by`] the premise's.
    pub fn given(mut self, premise: Test) -> Test {
        self.given = Some(Box::new(premise));
        self.verdict = self.decide();
        self
    }

    /// The same test with its tolerance, and its premise's, multiplied by `factor` (the
    /// verdict model's run at half and twice the tolerance).
    pub fn with_tolerance_scaled(&self, factor: f64) -> Test {
        let rule = Rule { tolerance: self.rule.tolerance * factor, ..self.rule };
        let test = Test::new(self.subject.clone(), rule, self.effect);
        match &self.given {
            Some(premise) => test.given(premise.with_tolerance_scaled(factor)),
            None => test,
        }
    }

    /// The verdict the rule gives on the effect, under the premise when there is one
    /// (what `verdict` must be).
    pub fn decide(&self) -> Verdict {
        let own = self.rule.decide(&self.effect);
        match &self.given {
            Some(premise) => Verdict::implied_by(premise.decide(), own),
            None => own,
        }
    }

    /// The rule in short, with the premise's when there is one: `not below −0.001, if
    /// above +0.001`.
    pub fn rule_short(&self) -> String {
        match &self.given {
            Some(premise) => format!("{}, if {}", self.rule.short(), premise.rule_short()),
            None => self.rule.short(),
        }
    }

    /// Why the test got its verdict, in words: the rule's reason, led by the premise's
    /// when the premise decides it.
    pub fn reason(&self) -> String {
        let own = self.rule.reason(&self.effect);
        let Some(premise) = &self.given else { return own };
        let premise_verdict = premise.decide();
        let premise_reason = format!("{}: {}", premise.subject, premise.reason());
        match premise_verdict {
            Verdict::Holds => format!("{premise_reason}, so it applies; {own}"),
            Verdict::Fails => format!("{premise_reason}, so nothing is claimed"),
            _ if self.verdict == Verdict::Holds => {
                format!("{premise_reason}, undecided; {own}, so it holds either way")
            }
            _ => format!("{premise_reason}, undecided; {own}, so the premise decides"),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn an_effect_without_values_survives_json() {
        let empty = Effect::mean_of(&[], true, false);
        let json = serde_json::to_string(&empty).unwrap();
        assert!(json.contains("\"estimate\":null"), "{json}");
        let back: Effect = serde_json::from_str(&json).unwrap();
        assert!(back.estimate.is_nan() && back.low.is_nan() && back.high.is_nan());
        assert_eq!((back.repetitions, back.interval), (0, IntervalKind::Single));
        let one = Effect::exact(0.25);
        assert_eq!(
            serde_json::from_str::<Effect>(&serde_json::to_string(&one).unwrap()).unwrap(),
            one
        );
    }

    /// An effect with interval `[low, high]` over ten independent repetitions.
    pub(crate) fn interval(low: f64, high: f64) -> Effect {
        Effect {
            estimate: (low + high) / 2.0,
            low,
            high,
            repetitions: 10,
            interval: IntervalKind::Independent,
        }
    }

    /// The decision rule on intervals above, below, inside and straddling the tolerance,
    /// and exactly at its bound, for every direction.
    #[test]
    fn the_decision_rule_table() {
        use Verdict::{Fails as F, Holds as H, Inconclusive as I};
        let t = 0.01;
        // (interval, above, below, within, not below, not above)
        let table = [
            ((0.02, 0.05), [H, F, F, H, F]),    // beyond +τ
            ((-0.05, -0.02), [F, H, F, F, H]),  // beyond −τ
            ((-0.005, 0.005), [F, F, H, H, H]), // inside ±τ
            ((0.0, 0.03), [I, F, I, H, I]),     // straddles +τ
            ((-0.03, 0.0), [F, I, I, I, H]),    // straddles −τ
            ((-0.03, 0.03), [I, I, I, I, I]),   // straddles both
            ((0.01, 0.02), [I, F, I, H, I]),    // at the bound +τ from above
            ((-0.01, 0.01), [I, I, H, H, H]),   // exactly ±τ
            ((-0.02, -0.01), [F, I, I, I, H]),  // at the bound −τ from below
        ];
        let rules = [
            Rule::above(t),
            Rule::below(t),
            Rule::within(t),
            Rule::not_below(t),
            Rule::not_above(t),
        ];
        for ((low, high), expected) in table {
            for (rule, want) in rules.iter().zip(expected) {
                assert_eq!(
                    rule.decide(&interval(low, high)),
                    want,
                    "{:?} on [{low}, {high}]",
                    rule.direction
                );
            }
        }
    }

    /// The implication's table, and a premise the data cannot settle never failing a test.
    #[test]
    fn a_conditional_test_is_the_implication() {
        use Verdict::{Fails as F, Holds as H, Inconclusive as I};
        for (premise, consequence, want) in [
            (H, H, H),
            (H, F, F),
            (H, I, I),
            (F, H, H),
            (F, F, H),
            (F, I, H),
            (I, H, H),
            (I, F, I),
            (I, I, I),
        ] {
            assert_eq!(
                Verdict::implied_by(premise, consequence),
                want,
                "{premise} ⇒ {consequence}"
            );
        }
        let croc = |low, high| Test::new("CROC a − b", Rule::not_below(0.001), interval(low, high));
        let roc = |low, high| Test::new("ROC a − b", Rule::above(0.001), interval(low, high));
        // ROC puts a over b; CROC puts b over a beyond the tolerance: a reversal.
        let reversed = croc(-0.007, -0.005).given(roc(0.002, 0.004));
        assert_eq!(reversed.verdict, F);
        assert_eq!(reversed.decide(), F);
        assert_eq!(reversed.rule_short(), "not below −0.001, if above +0.001");
        assert!(
            reversed
                .reason()
                .starts_with("ROC a − b: the interval lies above +0.001, so it applies")
        );
        // ROC cannot tell: the same CROC order is no failure.
        let undecided = croc(-0.007, -0.005).given(roc(-0.0026, 0.0036));
        assert_eq!(undecided.verdict, I);
        assert!(undecided.reason().contains("undecided"), "{}", undecided.reason());
        // ROC cannot tell, and CROC does not reverse either way.
        assert_eq!(croc(-0.0005, 0.0008).given(roc(-0.0026, 0.0036)).verdict, H);
        // ROC puts b over a: nothing is claimed of this orientation.
        let vacuous = croc(-0.007, -0.005).given(roc(-0.004, -0.002));
        assert_eq!(vacuous.verdict, H);
        assert!(vacuous.reason().ends_with("so nothing is claimed"));
        // Run at another tolerance, a test keeps its premise, at the same factor.
        let half = reversed.with_tolerance_scaled(0.5);
        assert_eq!(half.rule.tolerance, 0.0005);
        assert_eq!(half.given.as_ref().unwrap().rule.tolerance, 0.0005);
        assert_eq!(vacuous.with_tolerance_scaled(2.0).verdict, H);
        // Survives JSON, and a test without a premise writes none.
        let back: Test = serde_json::from_str(&serde_json::to_string(&reversed).unwrap()).unwrap();
        assert_eq!(back, reversed);
        assert!(!serde_json::to_string(&croc(0.0, 0.1)).unwrap().contains("given"));
    }

    #[test]
    fn a_simultaneous_interval_is_the_t_interval_at_the_bonferroni_level() {
        // scipy.stats.t.ppf((1 + level) / 2, 4) around the mean, level 0.95 and 0.995.
        let values = [0.012, 0.018, 0.009, 0.021, 0.015];
        let one = Effect::mean_of(&values, true, false);
        let of_ten = Effect::mean_of_simultaneous(&values, 10);
        for (effect, low, high) in [
            (one, 0.009110270515567329, 0.02088972948443267),
            (of_ten, 0.003125764348456829, 0.02687423565154317),
        ] {
            assert!((effect.low - low).abs() < 1e-12 && (effect.high - high).abs() < 1e-12);
            assert!((effect.estimate - 0.015).abs() < 1e-15 && effect.repetitions == 5);
        }
        assert_eq!(of_ten.interval, IntervalKind::Simultaneous { family: 10 });
        assert!(of_ten.problems().is_empty());
        // The wider interval no longer clears a tolerance the single one clears.
        assert_eq!(Rule::above(0.005).decide(&one), Verdict::Holds);
        assert_eq!(Rule::above(0.005).decide(&of_ten), Verdict::Inconclusive);
        assert_eq!(
            of_ten.interval.describe(),
            "t over independent repetitions, simultaneous 95% over 10 intervals (each at 99.5%)"
        );
        // A family of one is the single interval; fewer than two values are one draw.
        let alone = Effect::mean_of_simultaneous(&values, 1);
        assert!((alone.low - one.low).abs() < 1e-15 && (alone.high - one.high).abs() < 1e-15);
        assert_eq!(Effect::mean_of_simultaneous(&[0.5], 3).interval, IntervalKind::Single);
        // Written and read back in a report.
        let json = serde_json::to_string(&of_ten).unwrap();
        assert!(json.contains(r#""interval":{"simultaneous":{"family":10}}"#), "{json}");
        assert_eq!(serde_json::from_str::<Effect>(&json).unwrap(), of_ten);
    }

    #[test]
    fn one_draw_decides_nothing_and_an_exact_value_decides() {
        let rule = Rule::above(0.001);
        assert_eq!(rule.decide(&Effect::mean_of(&[0.5], true, false)), Verdict::Inconclusive);
        assert_eq!(rule.decide(&Effect::mean_of(&[0.5], true, true)), Verdict::Holds);
        assert_eq!(rule.decide(&Effect::exact(0.0005)), Verdict::Fails);
        assert_eq!(rule.decide(&Effect::mean_of(&[], true, true)), Verdict::Inconclusive);
        assert_eq!(rule.reason(&Effect::exact(0.0005)), "the interval lies below +0.001");
        // The reason names the bound the verdict rests on.
        let wide = interval(-0.0518, 0.0217);
        let at_most = Rule::not_above(0.05);
        assert_eq!(at_most.decide(&wide), Verdict::Holds);
        assert_eq!(at_most.reason(&wide), "the interval lies at or below +0.05");
        assert_eq!(Rule::not_below(0.05).reason(&wide), "the interval straddles −0.05");
        assert_eq!(Rule::within(0.05).reason(&wide), "the interval reaches past ±0.05");
        assert_eq!(
            Rule::above(0.001).reason(&interval(-0.2, -0.1)),
            "the interval lies below +0.001"
        );
        assert_eq!(Rule::below(0.5).reason(&interval(-0.6, -0.2)), "the interval straddles −0.5");
        assert_eq!(
            Rule::above(0.001).reason(&interval(0.01, 0.02)),
            "the interval lies above +0.001"
        );
        assert_eq!(Rule::not_below(0.0).short(), "not below 0");
        // Without a tolerance the bound is 0, never `−0`.
        assert_eq!(Rule::below(0.0).reason(&interval(-0.2, -0.1)), "the interval lies below 0");
        assert_eq!(Rule::above(0.0).reason(&interval(-0.1, 0.1)), "the interval straddles 0");
        assert_eq!(Rule::within(0.0).reason(&Effect::exact(0.0)), "the interval is 0: equal");
        assert_eq!(Rule::within(0.0).short(), "equal to 0");
        assert_eq!(Rule::below(0.02).short(), "below −0.02");
    }

    #[test]
    fn paired_effects_use_the_t_interval_of_the_differences() {
        let a = [0.70, 0.72, 0.69, 0.71, 0.73];
        let b = [0.68, 0.69, 0.69, 0.70, 0.70];
        let e = Effect::paired(&a, &b, true, false);
        assert_eq!(e.repetitions, 5);
        assert_eq!(e.interval, IntervalKind::Independent);
        assert!((e.estimate - 0.018).abs() < 1e-12);
        // sd of (0.02, 0.03, 0, 0.01, 0.03) = 0.013038; t(0.975, 4) = 2.776445
        let half = 2.776_445 * 0.013_038_4 / 5f64.sqrt();
        assert!((e.high - e.estimate - half).abs() < 1e-5, "{e:?}");
        assert!(e.problems().is_empty());
        let dependent = Effect::paired(&a, &b, false, false);
        assert_eq!(dependent.interval, IntervalKind::Dependent);
        assert!(dependent.describe(3).contains("not over partitions"));
    }

    #[test]
    fn the_range_holds_the_central_draws() {
        let draws: Vec<f64> = (0..=200).map(|i| f64::from(i) / 200.0).collect();
        let e = Effect::range_of(&draws);
        assert_eq!(e.repetitions, 201);
        assert!((e.low - 0.025).abs() < 1e-12 && (e.high - 0.975).abs() < 1e-12, "{e:?}");
        assert!((e.minus(0.5).estimate).abs() < 1e-12);
    }

    #[test]
    fn combining_parts() {
        use Verdict::*;
        assert_eq!(Verdict::all([Holds, Holds]), Holds);
        assert_eq!(Verdict::all([Holds, Inconclusive]), Inconclusive);
        assert_eq!(Verdict::all([Holds, Inconclusive, Fails]), Fails);
        assert_eq!(Verdict::all([Untestable, Untestable]), Untestable);
        assert_eq!(Verdict::all([Untestable, Holds]), Inconclusive);
        assert_eq!(Verdict::all([]), Untestable);
    }

    #[test]
    fn malformed_effects_are_named() {
        let mut e = interval(0.0, 0.1);
        e.estimate = 0.2;
        assert!(e.problems()[0].contains("outside its interval"));
        let single = Effect { repetitions: 3, ..Effect::exact(0.1) };
        assert!(single.problems()[0].contains("do not fit"));
        assert_eq!(
            serde_json::to_string(&Verdict::DependsOnReading).unwrap(),
            "\"depends-on-reading\""
        );
    }
}
