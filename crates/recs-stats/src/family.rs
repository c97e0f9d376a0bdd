//! A family of comparisons: several systems compared on several metrics at once, the way
//! a reviewer accepts — every pair (or every system against a baseline) on every metric,
//! the paired tests asked for, the mean difference and Cohen's `d_z` with their
//! intervals, each test's p-values adjusted over the whole family of (pair, metric)
//! comparisons, optionally the randomised Tukey HSD of each metric, and which system of
//! each comparison is significantly better. Every number comes from the functions of
//! this crate; this module only decides what is compared with what, and in which order.
//! `recs compare` and the Python package's `recs.compare` both report what [`compare`]
//! returns. Definitions: `docs/statistics.md`, "Families of comparisons".

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::adjust::{Adjustment, adjust_p_values};
use crate::effect::{CohensDz, MeanDifference, cohens_dz, mean_difference};
use crate::error::{Result, StatsError};
use crate::paired::{WilcoxonMethod, paired_t_test, sign_test, wilcoxon_signed_rank};
use crate::randomised::{fisher_randomisation, paired_bootstrap};
use crate::tukey::randomised_tukey_hsd;

/// The confidence level of every interval of a family.
pub const LEVEL: f64 = 0.95;

/// A paired test of a family, two-sided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Test {
    /// Student's paired t-test ([`paired_t_test`]).
    T,
    /// The Wilcoxon signed-rank test ([`wilcoxon_signed_rank`], scipy's `method="auto"`).
    Wilcoxon,
    /// The sign test, exact binomial ([`sign_test`]).
    Sign,
    /// Fisher's randomisation test ([`fisher_randomisation`], [`Settings::permutations`]).
    Fisher,
    /// The paired bootstrap ([`paired_bootstrap`]: shift-method p-value, percentile
    /// interval, [`Settings::resamples`]).
    Bootstrap,
}

impl Test {
    /// Every test, in the order of [`Test::key`]'s list.
    pub const ALL: [Test; 5] = [Test::T, Test::Wilcoxon, Test::Sign, Test::Fisher, Test::Bootstrap];

    /// The test's short name: `t`, `wilcoxon`, `sign`, `fisher`, `bootstrap` (what
    /// [`Test::from_str`] reads, and the prefix of its columns in a report).
    pub fn key(self) -> &'static str {
        match self {
            Test::T => "t",
            Test::Wilcoxon => "wilcoxon",
            Test::Sign => "sign",
            Test::Fisher => "fisher",
            Test::Bootstrap => "bootstrap",
        }
    }

    /// The test in a sentence: "the paired t-test".
    pub fn title(self) -> &'static str {
        match self {
            Test::T => "the paired t-test",
            Test::Wilcoxon => "the Wilcoxon signed-rank test",
            Test::Sign => "the sign test",
            Test::Fisher => "Fisher's randomisation test",
            Test::Bootstrap => "the paired bootstrap",
        }
    }
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl FromStr for Test {
    type Err = StatsError;

    /// A [`Test::key`], or one of the aliases `student` (t), `randomisation` and
    /// `permutation` (fisher).
    fn from_str(text: &str) -> Result<Self> {
        match text.trim() {
            "student" => return Ok(Test::T),
            "randomisation" | "permutation" => return Ok(Test::Fisher),
            _ => {}
        }
        Test::ALL.into_iter().find(|t| t.key() == text.trim()).ok_or_else(|| {
            StatsError::UnknownName {
                what: "test",
                name: text.to_string(),
                allowed: "t, wilcoxon, sign, fisher, bootstrap",
            }
        })
    }
}

/// The adjustment of a family's p-values named `text`: `holm`, `bonferroni`, `bh`
/// (Benjamini–Hochberg), or `none` (`None`: the p-values as they are).
///
/// # Errors
/// [`StatsError::UnknownName`] for any other name.
pub fn parse_adjustment(text: &str) -> Result<Option<Adjustment>> {
    match text.trim() {
        "none" => Ok(None),
        "holm" => Ok(Some(Adjustment::Holm)),
        "bonferroni" => Ok(Some(Adjustment::Bonferroni)),
        "bh" => Ok(Some(Adjustment::BenjaminiHochberg)),
        _ => Err(StatsError::UnknownName {
            what: "adjustment",
            name: text.to_string(),
            allowed: "holm, bonferroni, bh, none",
        }),
    }
}

/// The short name of an adjustment, as [`parse_adjustment`] reads it.
pub fn adjustment_key(adjustment: Option<Adjustment>) -> &'static str {
    match adjustment {
        None => "none",
        Some(Adjustment::Holm) => "holm",
        Some(Adjustment::Bonferroni) => "bonferroni",
        Some(Adjustment::BenjaminiHochberg) => "bh",
    }
}

/// The name of an adjustment in a sentence: `Holm`, `Bonferroni`, `Benjamini–Hochberg`,
/// `unadjusted`.
pub fn adjustment_title(adjustment: Option<Adjustment>) -> &'static str {
    match adjustment {
        None => "unadjusted",
        Some(Adjustment::Holm) => "Holm",
        Some(Adjustment::Bonferroni) => "Bonferroni",
        Some(Adjustment::BenjaminiHochberg) => "Benjamini–Hochberg",
    }
}

/// How a family is computed. [`Settings::default`] is `recs compare`'s default: the
/// t-test and Fisher's randomisation test, Holm's adjustment, 10,000 permutations and
/// resamples, seed [`recs_core::DEFAULT_SEED`], no Tukey HSD, marks at `p < 0.05`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The tests, in the order asked, each at most once; the first one marks
    /// significance unless `tukey`.
    pub tests: Vec<Test>,
    /// The adjustment of each test's p-values over the family (`None`: unadjusted).
    pub adjustment: Option<Adjustment>,
    /// The sign-flip permutations of Fisher's test and of the Tukey HSD.
    pub permutations: usize,
    /// The resamples of the paired bootstrap.
    pub resamples: usize,
    /// The seed of every randomised statistic: each comparison draws from the seed
    /// itself, so its p-values do not depend on the other systems and metrics.
    pub seed: u64,
    /// The randomised Tukey HSD of each metric (all pairs only); it then marks
    /// significance.
    pub tukey: bool,
    /// The significance level of the marks ([`Comparison::better`]).
    pub alpha: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            tests: vec![Test::T, Test::Fisher],
            adjustment: Some(Adjustment::Holm),
            permutations: 10_000,
            resamples: 10_000,
            seed: recs_core::DEFAULT_SEED,
            tukey: false,
            alpha: 0.05,
        }
    }
}

impl Settings {
    /// Checks that the settings can be used together with `pairs`, before any value is
    /// read: at least one test, none twice, at least one permutation and resample, `alpha`
    /// strictly between 0 and 1, and the Tukey HSD only over all pairs.
    ///
    /// # Errors
    /// [`StatsError::InvalidFamily`] saying which setting is at fault.
    pub fn check(&self, pairs: Pairs) -> Result<()> {
        let invalid = |reason: String| Err(StatsError::InvalidFamily { reason });
        if self.tests.is_empty() {
            return invalid("no test is asked for: a family needs at least one".to_string());
        }
        for (i, test) in self.tests.iter().enumerate() {
            if self.tests[..i].contains(test) {
                return invalid(format!("the test {test} is asked for twice"));
            }
        }
        if self.permutations == 0 {
            return invalid("permutations must be at least 1".to_string());
        }
        if self.resamples == 0 {
            return invalid("resamples must be at least 1".to_string());
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return invalid(format!("alpha {} must lie strictly between 0 and 1", self.alpha));
        }
        if self.tukey && pairs != Pairs::All {
            return invalid(
                "the randomised Tukey HSD compares all pairs, not each system with a baseline"
                    .to_string(),
            );
        }
        Ok(())
    }
}

/// Which pairs of systems a family compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pairs {
    /// Every system against system `baseline`: pairs `(system, baseline)` in system order.
    Baseline(usize),
    /// Every pair `(i, j)`, `i < j`, in system order.
    All,
}

impl Pairs {
    /// The pairs `(a, b)` among `k` systems; a comparison is of `a − b`.
    ///
    /// ```
    /// use recs_stats::family::Pairs;
    /// assert_eq!(Pairs::All.list(3), [(0, 1), (0, 2), (1, 2)]);
    /// assert_eq!(Pairs::Baseline(1).list(3), [(0, 1), (2, 1)]);
    /// ```
    pub fn list(self, k: usize) -> Vec<(usize, usize)> {
        match self {
            Pairs::Baseline(base) => (0..k).filter(|&s| s != base).map(|s| (s, base)).collect(),
            Pairs::All => (0..k).flat_map(|a| (a + 1..k).map(move |b| (a, b))).collect(),
        }
    }
}

/// What a test adds to its statistic and p-value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Detail {
    /// `n` users.
    T {
        /// The users.
        n: usize,
    },
    /// `W⁺`, `n'` non-zero differences, and `z` when the normal approximation was used.
    Wilcoxon {
        /// The sum of the ranks of the positive differences.
        w_plus: f64,
        /// The non-zero differences.
        n: usize,
        /// The normal approximation's `z`, when it was used.
        z: Option<f64>,
    },
    /// `n'` non-zero differences.
    Sign {
        /// The non-zero differences.
        n: usize,
    },
    /// The permutations drawn.
    Fisher {
        /// The permutations drawn.
        permutations: usize,
    },
    /// The percentile interval of the mean difference and the resamples drawn.
    Bootstrap {
        /// The lower end of the percentile interval.
        lower: f64,
        /// The upper end of the percentile interval.
        upper: f64,
        /// The resamples drawn.
        resamples: usize,
    },
}

/// One test of one comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The test.
    pub test: Test,
    /// `t`; `min(W⁺, W⁻)`; the number of users with `a > b`; the mean difference (Fisher
    /// and the bootstrap).
    pub statistic: f64,
    /// The two-sided p-value.
    pub p_value: f64,
    /// The p-value adjusted over the family (the p-value itself when unadjusted).
    pub p_adjusted: f64,
    /// Which way the test's own statistic points: `Greater` when it finds `a` above `b`.
    pub direction: Ordering,
    /// What the test adds.
    pub detail: Detail,
}

/// One pair of systems on one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The index of the metric among those given to [`compare`].
    pub metric: usize,
    /// The first system (the comparison is of `a − b`).
    pub a: usize,
    /// The second system (the baseline, when there is one).
    pub b: usize,
    /// The users paired.
    pub n_users: usize,
    /// The mean of `a` over the users ([`mean`]).
    pub mean_a: f64,
    /// The mean of `b` over the users.
    pub mean_b: f64,
    /// The mean difference `a − b` with its t interval at [`LEVEL`].
    pub difference: MeanDifference,
    /// Cohen's `d_z` with its noncentral-t interval at [`LEVEL`]; `None` when it is
    /// undefined (every difference the same non-zero value), which a warning says.
    pub dz: Option<CohensDz>,
    /// The tests, in [`Settings::tests`] order.
    pub tests: Vec<Outcome>,
    /// The Tukey HSD's p-value of the pair, adjusted over the metric's pairs.
    pub tukey: Option<f64>,
    /// The system significantly better by the marking statistic ([`Family::marks`]), if
    /// any.
    pub better: Option<usize>,
}

/// The statistic that decides which system of a comparison is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Marks {
    /// The first test of [`Settings::tests`], after the adjustment.
    Test(Test),
    /// The randomised Tukey HSD of each metric.
    Tukey,
}

impl Marks {
    /// `tukey`, or the test's [`Test::key`].
    pub fn key(self) -> &'static str {
        match self {
            Marks::Test(test) => test.key(),
            Marks::Tukey => "tukey",
        }
    }
}

/// Every comparison of a family, metric by metric, each metric's pairs in
/// [`Pairs::list`] order.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// The systems compared.
    pub n_systems: usize,
    /// The pairs compared on each metric.
    pub n_pairs: usize,
    /// The metrics.
    pub n_metrics: usize,
    /// The comparisons.
    pub comparisons: Vec<Comparison>,
    /// The tests of each comparison, in order ([`Settings::tests`]).
    pub tests: Vec<Test>,
    /// What decided [`Comparison::better`].
    pub marks: Marks,
    /// The adjustment of each test's p-values over the family.
    pub adjustment: Option<Adjustment>,
    /// Statistics that are undefined for a comparison (Cohen's `d_z`), each naming the
    /// metric and the pair.
    pub warnings: Vec<String>,
}

/// A cell of the family's table ([`Family::columns`], [`Family::row`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    /// A name: a metric, a system, an adjustment.
    Text(&'a str),
    /// A count of users.
    Count(usize),
    /// A number, at full precision (possibly infinite: `t` when every difference is the
    /// same non-zero value).
    Number(f64),
    /// No value: an undefined `d_z`, no system found better.
    Missing,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Family {
    /// The family each test is adjusted over: "12 comparisons: 4 pairs × 3 metrics, Holm".
    pub fn describe(&self) -> String {
        format!(
            "{}: {} × {}, {}",
            plural(self.comparisons.len(), "comparison", "comparisons"),
            plural(self.n_pairs, "pair", "pairs"),
            plural(self.n_metrics, "metric", "metrics"),
            adjustment_title(self.adjustment)
        )
    }

    /// The columns of the family as one table, a row per comparison ([`Family::row`]):
    /// `metric`, `run_a`, `run_b`, `n_users`, `mean_a`, `mean_b`, `difference`,
    /// `difference_lower`, `difference_upper`, `d_z`, `d_z_lower`, `d_z_upper`; per test
    /// `<test>_statistic`, `<test>_p`, `<test>_p_adjusted` (and `bootstrap_lower`,
    /// `bootstrap_upper`); `tukey_p` with the Tukey HSD; `adjustment`, `better`. The
    /// columns of `recs compare --format csv` and of the Python package's `recs.compare`.
    pub fn columns(&self) -> Vec<String> {
        let mut columns: Vec<String> = [
            "metric",
            "run_a",
            "run_b",
            "n_users",
            "mean_a",
            "mean_b",
            "difference",
            "difference_lower",
            "difference_upper",
            "d_z",
            "d_z_lower",
            "d_z_upper",
        ]
        .map(String::from)
        .to_vec();
        for test in &self.tests {
            let key = test.key();
            columns.extend([
                format!("{key}_statistic"),
                format!("{key}_p"),
                format!("{key}_p_adjusted"),
            ]);
            if *test == Test::Bootstrap {
                columns.extend(["bootstrap_lower".to_string(), "bootstrap_upper".to_string()]);
            }
        }
        if self.marks == Marks::Tukey {
            columns.push("tukey_p".to_string());
        }
        columns.extend(["adjustment".to_string(), "better".to_string()]);
        columns
    }

    /// The cells of comparison `c` under [`Family::columns`], `metrics` and `names` naming
    /// the metrics and the systems as given to [`compare`].
    pub fn row<'a>(&self, c: &Comparison, metrics: &[&'a str], names: &[&'a str]) -> Vec<Cell<'a>> {
        let number = |x: Option<f64>| x.map_or(Cell::Missing, Cell::Number);
        let d = &c.difference;
        let mut row = vec![
            Cell::Text(metrics[c.metric]),
            Cell::Text(names[c.a]),
            Cell::Text(names[c.b]),
            Cell::Count(c.n_users),
            Cell::Number(c.mean_a),
            Cell::Number(c.mean_b),
            Cell::Number(d.mean),
            Cell::Number(d.lower),
            Cell::Number(d.upper),
            number(c.dz.map(|z| z.d_z)),
            number(c.dz.map(|z| z.lower)),
            number(c.dz.map(|z| z.upper)),
        ];
        for outcome in &c.tests {
            row.extend([outcome.statistic, outcome.p_value, outcome.p_adjusted].map(Cell::Number));
            if let Detail::Bootstrap { lower, upper, .. } = outcome.detail {
                row.extend([Cell::Number(lower), Cell::Number(upper)]);
            }
        }
        if self.marks == Marks::Tukey {
            row.push(number(c.tukey));
        }
        row.push(Cell::Text(adjustment_key(self.adjustment)));
        row.push(c.better.map_or(Cell::Missing, |s| Cell::Text(names[s])));
        row
    }

    /// The family of the Tukey HSD: "3 pairs of 3 runs, within each metric".
    pub fn describe_tukey(&self) -> String {
        format!(
            "{} of {} runs, within each metric",
            plural(self.n_pairs, "pair", "pairs"),
            self.n_systems
        )
    }
}

/// One metric's values, paired: `systems[s][i]` is the value of system `s` for user `i`,
/// the same users in every system.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetricValues<'a> {
    /// The metric's name, as errors and warnings name it.
    pub metric: &'a str,
    /// One series of per-user values per system.
    pub systems: &'a [Vec<f64>],
    /// Whether a lower value is the better one (a miscalibration, say): then
    /// [`Comparison::better`] is the system significantly lower. `false` by default.
    pub lower_is_better: bool,
}

/// The mean of per-user values, summed in user order (as a per-user metric's mean is).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

fn ordering(x: f64) -> Ordering {
    x.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// Runs `test` on `a − b`.
fn run_test(test: Test, a: &[f64], b: &[f64], settings: &Settings) -> Result<Outcome> {
    let (statistic, p_value, direction, detail) = match test {
        Test::T => {
            let r = paired_t_test(a, b)?;
            (r.statistic, r.p_value, ordering(r.statistic), Detail::T { n: r.n })
        }
        Test::Wilcoxon => {
            let r = wilcoxon_signed_rank(a, b, WilcoxonMethod::Auto)?;
            let total = (r.n * (r.n + 1)) as f64 / 2.0;
            let direction = r.w_plus.partial_cmp(&(total - r.w_plus)).unwrap_or(Ordering::Equal);
            (
                r.statistic,
                r.p_value,
                direction,
                Detail::Wilcoxon { w_plus: r.w_plus, n: r.n, z: r.z },
            )
        }
        Test::Sign => {
            let r = sign_test(a, b)?;
            let direction = r.statistic.partial_cmp(&(r.n as f64 - r.statistic));
            (r.statistic, r.p_value, direction.unwrap_or(Ordering::Equal), Detail::Sign { n: r.n })
        }
        Test::Fisher => {
            let r = fisher_randomisation(a, b, settings.permutations, settings.seed)?;
            let detail = Detail::Fisher { permutations: r.permutations };
            (r.statistic, r.p_value, ordering(r.statistic), detail)
        }
        Test::Bootstrap => {
            let r = paired_bootstrap(a, b, settings.resamples, LEVEL, settings.seed)?;
            let detail =
                Detail::Bootstrap { lower: r.lower, upper: r.upper, resamples: r.resamples };
            (r.mean, r.p_value, ordering(r.mean), detail)
        }
    };
    Ok(Outcome { test, statistic, p_value, p_adjusted: p_value, direction, detail })
}

/// Compares the systems named `names` on every metric of `metrics`, over `pairs`.
///
/// For each metric in turn: its Tukey HSD (with [`Settings::tukey`]), then each pair of
/// [`Pairs::list`]: the mean difference, Cohen's `d_z` and the tests, in
/// [`Settings::tests`] order, every randomised one drawn from [`Settings::seed`] itself.
/// Then each test's p-values are adjusted over all the comparisons, and the marking
/// statistic decides [`Comparison::better`]: the adjusted p-value of the first test and
/// the direction of its statistic (`t`, `W⁺ > W⁻`, more users better than worse, the mean
/// difference), or with the Tukey HSD its p-value and the order of the means; the higher
/// system is the better one unless the metric's [`MetricValues::lower_is_better`].
///
/// ```
/// use recs_stats::family::{self, MetricValues, Pairs, Settings, Test};
///
/// // Per-user NDCG@10 and MRR of three systems on the same eight users.
/// let ndcg = vec![
///     vec![0.61, 0.52, 0.70, 0.44, 0.58, 0.66, 0.49, 0.73],
///     vec![0.57, 0.50, 0.64, 0.47, 0.51, 0.60, 0.45, 0.70],
///     vec![0.31, 0.22, 0.40, 0.25, 0.20, 0.36, 0.19, 0.43],
/// ];
/// let mrr = vec![
///     vec![1.0, 0.5, 1.0, 0.5, 1.0, 1.0, 0.5, 1.0],
///     vec![1.0, 0.5, 0.5, 0.5, 1.0, 1.0, 0.5, 1.0],
///     vec![0.25, 0.2, 0.5, 0.25, 0.2, 0.5, 0.2, 0.33],
/// ];
/// let metrics =
///     [MetricValues { metric: "ndcg@10", systems: &ndcg, ..MetricValues::default() }, MetricValues { metric: "mrr", systems: &mrr, ..MetricValues::default() }];
/// let settings = Settings { tests: vec![Test::T, Test::Wilcoxon], ..Settings::default() };
/// let f = family::compare(&metrics, &["bm25", "knn", "pop"], Pairs::Baseline(2), &settings)?;
///
/// assert_eq!(f.describe(), "4 comparisons: 2 pairs × 2 metrics, Holm");
/// let first = &f.comparisons[0]; // ndcg@10, bm25 − pop
/// assert_eq!((first.metric, first.a, first.b), (0, 0, 2));
/// assert!(first.difference.lower > 0.0);
/// // Holm over the 4 comparisons of each test: never below the raw p-value.
/// assert!(f.comparisons.iter().all(|c| c.tests.iter().all(|t| t.p_adjusted >= t.p_value)));
/// assert_eq!(first.better, Some(0)); // bm25 beats pop by the t-test, after Holm
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// [`StatsError::InvalidFamily`] for settings [`Settings::check`] refuses, fewer than two
/// systems, a metric without one series per name, or a baseline that is not a system;
/// [`StatsError::InComparison`] and [`StatsError::InTukeyHsd`] for an input a statistic
/// refuses (a non-finite value, series of unequal lengths, fewer than 2 users), naming
/// the metric and the pair.
pub fn compare(
    metrics: &[MetricValues<'_>],
    names: &[&str],
    pairs: Pairs,
    settings: &Settings,
) -> Result<Family> {
    settings.check(pairs)?;
    let invalid = |reason: String| Err(StatsError::InvalidFamily { reason });
    if names.len() < 2 {
        return invalid(format!("a family compares at least 2 systems, found {}", names.len()));
    }
    if let Pairs::Baseline(base) = pairs
        && base >= names.len()
    {
        return invalid(format!("baseline {base} is not one of the {} systems", names.len()));
    }
    if let Some(values) = metrics.iter().find(|v| v.systems.len() != names.len()) {
        return invalid(format!(
            "{}: {} series of values for {} systems",
            values.metric,
            values.systems.len(),
            names.len()
        ));
    }
    let list = pairs.list(names.len());
    let mut comparisons = Vec::with_capacity(list.len() * metrics.len());
    let mut warnings = Vec::new();
    for (m, values) in metrics.iter().enumerate() {
        let tukey = if settings.tukey {
            let hsd = randomised_tukey_hsd(values.systems, settings.permutations, settings.seed)
                .map_err(|e| StatsError::InTukeyHsd {
                    metric: values.metric.to_string(),
                    source: Box::new(e),
                })?;
            Some(hsd)
        } else {
            None
        };
        for &(a, b) in &list {
            let (x, y) = (&values.systems[a], &values.systems[b]);
            let about = |e: StatsError| StatsError::InComparison {
                metric: values.metric.to_string(),
                a: names[a].to_string(),
                b: names[b].to_string(),
                source: Box::new(e),
            };
            let difference = mean_difference(x, y, LEVEL).map_err(about)?;
            let dz = cohens_dz(x, y, LEVEL).map_err(|e| {
                warnings.push(format!("{}, {} − {}: {e}", values.metric, names[a], names[b]));
            });
            let tests = settings
                .tests
                .iter()
                .map(|&test| run_test(test, x, y, settings).map_err(about))
                .collect::<Result<Vec<_>>>()?;
            comparisons.push(Comparison {
                metric: m,
                a,
                b,
                n_users: x.len(),
                mean_a: mean(x),
                mean_b: mean(y),
                difference,
                dz: dz.ok(),
                tests,
                tukey: tukey.as_ref().and_then(|h| h.pair(a, b)).map(|p| p.p_value),
                better: None,
            });
        }
    }
    if let Some(method) = settings.adjustment {
        for t in 0..settings.tests.len() {
            let p: Vec<f64> = comparisons.iter().map(|c| c.tests[t].p_value).collect();
            for (c, q) in comparisons.iter_mut().zip(adjust_p_values(&p, method)?) {
                c.tests[t].p_adjusted = q;
            }
        }
    }
    let marks = if settings.tukey { Marks::Tukey } else { Marks::Test(settings.tests[0]) };
    for c in &mut comparisons {
        let lower_is_better = metrics[c.metric].lower_is_better;
        let (p, direction) = match marks {
            Marks::Tukey => (c.tukey, c.mean_a.partial_cmp(&c.mean_b)),
            Marks::Test(_) => (Some(c.tests[0].p_adjusted), Some(c.tests[0].direction)),
        };
        let (higher, lower) = if lower_is_better { (c.b, c.a) } else { (c.a, c.b) };
        c.better = match (p, direction) {
            (Some(p), Some(Ordering::Greater)) if p < settings.alpha => Some(higher),
            (Some(p), Some(Ordering::Less)) if p < settings.alpha => Some(lower),
            _ => None,
        };
    }
    Ok(Family {
        n_systems: names.len(),
        n_pairs: list.len(),
        n_metrics: metrics.len(),
        comparisons,
        tests: settings.tests.clone(),
        marks,
        adjustment: settings.adjustment,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three systems on ten users: `good` well above `bad`, `mid` a little below `good`.
    fn systems() -> Vec<Vec<f64>> {
        let good = vec![0.9, 0.8, 0.85, 0.7, 0.95, 0.6, 0.75, 0.8, 0.9, 0.65];
        let mid: Vec<f64> =
            good.iter().enumerate().map(|(i, x)| x - [0.05, 0.0, 0.1, -0.02][i % 4]).collect();
        let bad: Vec<f64> =
            good.iter().enumerate().map(|(i, x)| x - 0.4 - 0.01 * i as f64).collect();
        vec![good, mid, bad]
    }

    const NAMES: [&str; 3] = ["good", "mid", "bad"];

    fn family(pairs: Pairs, settings: &Settings) -> Family {
        let ndcg = systems();
        let mrr: Vec<Vec<f64>> =
            ndcg.iter().map(|s| s.iter().map(|x| (x * 1.1f64).min(1.0)).collect()).collect();
        let metrics = [
            MetricValues { metric: "ndcg", systems: &ndcg, ..MetricValues::default() },
            MetricValues { metric: "mrr", systems: &mrr, ..MetricValues::default() },
        ];
        compare(&metrics, &NAMES, pairs, settings).unwrap()
    }

    #[test]
    fn pairs_list_every_pair_once_in_run_order() {
        assert_eq!(Pairs::All.list(3), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(Pairs::Baseline(1).list(3), [(0, 1), (2, 1)]);
        assert_eq!(Pairs::Baseline(0).list(4), [(1, 0), (2, 0), (3, 0)]);
        assert!(Pairs::All.list(1).is_empty());
    }

    #[test]
    fn the_family_is_described_with_its_counts_and_adjustment() {
        let family = Family {
            n_systems: 2,
            n_pairs: 1,
            n_metrics: 1,
            comparisons: Vec::new(),
            tests: vec![Test::T],
            marks: Marks::Test(Test::T),
            adjustment: Some(Adjustment::BenjaminiHochberg),
            warnings: Vec::new(),
        };
        assert_eq!(family.describe(), "0 comparisons: 1 pair × 1 metric, Benjamini–Hochberg");
        assert_eq!(family.describe_tukey(), "1 pair of 2 runs, within each metric");
        let all = self::family(Pairs::All, &Settings::default());
        assert_eq!(all.describe(), "6 comparisons: 3 pairs × 2 metrics, Holm");
        let baseline = Settings { adjustment: None, ..Settings::default() };
        let baseline = self::family(Pairs::Baseline(2), &baseline);
        assert_eq!(baseline.describe(), "4 comparisons: 2 pairs × 2 metrics, unadjusted");
    }

    #[test]
    fn comparisons_run_metric_by_metric_in_pair_order() {
        let f = family(Pairs::Baseline(1), &Settings::default());
        let order: Vec<(usize, usize, usize)> =
            f.comparisons.iter().map(|c| (c.metric, c.a, c.b)).collect();
        assert_eq!(order, [(0, 0, 1), (0, 2, 1), (1, 0, 1), (1, 2, 1)]);
        let ndcg = systems();
        let c = &f.comparisons[1];
        assert_eq!((c.n_users, c.mean_a, c.mean_b), (10, mean(&ndcg[2]), mean(&ndcg[1])));
        assert_eq!(c.difference, mean_difference(&ndcg[2], &ndcg[1], LEVEL).unwrap());
        assert_eq!(c.dz, Some(cohens_dz(&ndcg[2], &ndcg[1], LEVEL).unwrap()));
        let t = paired_t_test(&ndcg[2], &ndcg[1]).unwrap();
        assert_eq!(
            (c.tests[0].test, c.tests[0].statistic, c.tests[0].p_value),
            (Test::T, t.statistic, t.p_value)
        );
        let fisher =
            fisher_randomisation(&ndcg[2], &ndcg[1], 10_000, recs_core::DEFAULT_SEED).unwrap();
        assert_eq!(
            c.tests[1].p_value, fisher.p_value,
            "each comparison draws from the seed itself"
        );
        assert_eq!(c.tests[1].detail, Detail::Fisher { permutations: 10_000 });
    }

    #[test]
    fn each_test_is_adjusted_over_the_whole_family() {
        for adjustment in [Adjustment::Holm, Adjustment::Bonferroni, Adjustment::BenjaminiHochberg]
        {
            let settings = Settings {
                tests: vec![Test::Wilcoxon, Test::T, Test::Sign],
                adjustment: Some(adjustment),
                ..Settings::default()
            };
            let f = family(Pairs::All, &settings);
            assert_eq!(f.comparisons.len(), 6);
            for t in 0..3 {
                let p: Vec<f64> = f.comparisons.iter().map(|c| c.tests[t].p_value).collect();
                let want = adjust_p_values(&p, adjustment).unwrap();
                let got: Vec<f64> = f.comparisons.iter().map(|c| c.tests[t].p_adjusted).collect();
                assert_eq!(got, want, "{adjustment:?}, test {t}");
            }
        }
        let f = family(Pairs::All, &Settings { adjustment: None, ..Settings::default() });
        assert!(f.comparisons.iter().flat_map(|c| &c.tests).all(|t| t.p_adjusted == t.p_value));
    }

    #[test]
    fn the_first_test_marks_the_better_system_in_its_direction() {
        let settings = Settings { tests: vec![Test::T, Test::Fisher], ..Settings::default() };
        let f = family(Pairs::All, &settings);
        assert_eq!(f.marks, Marks::Test(Test::T));
        for c in &f.comparisons {
            let first = &c.tests[0];
            let want = match first.direction {
                _ if first.p_adjusted >= settings.alpha => None,
                Ordering::Greater => Some(c.a),
                Ordering::Less => Some(c.b),
                Ordering::Equal => None,
            };
            assert_eq!(c.better, want, "{c:?}");
        }
        // good − bad and mid − bad: the first system; with bad first, the second.
        let by_pair = |a, b| f.comparisons.iter().find(|c| (c.metric, c.a, c.b) == (0, a, b));
        assert_eq!(by_pair(0, 2).unwrap().better, Some(0));
        assert_eq!(by_pair(1, 2).unwrap().better, Some(1));
        let against_bad = family(Pairs::Baseline(0), &settings);
        assert_eq!(against_bad.comparisons[1].better, Some(0), "bad − good: good is better");
        // A level no p-value reaches marks nothing.
        let strict = family(Pairs::All, &Settings { alpha: 1e-300, ..settings });
        assert!(strict.comparisons.iter().all(|c| c.better.is_none()));
    }

    #[test]
    fn a_metric_where_lower_is_better_marks_the_lower_system() {
        let settings = Settings::default();
        let values = systems();
        let compare_as = |lower_is_better| {
            let metrics = [MetricValues { metric: "miscal@10", systems: &values, lower_is_better }];
            compare(&metrics, &NAMES, Pairs::All, &settings).unwrap()
        };
        let (higher, lower) = (compare_as(false), compare_as(true));
        for (h, l) in higher.comparisons.iter().zip(&lower.comparisons) {
            // The same tests and p-values; the other system of each marked pair.
            assert_eq!(h.tests, l.tests);
            let other = |s: usize| if s == h.a { h.b } else { h.a };
            assert_eq!(l.better, h.better.map(other), "{h:?}");
        }
        // good − bad: bad is lower, so better where lower is better.
        assert_eq!(
            lower.comparisons.iter().find(|c| (c.a, c.b) == (0, 2)).unwrap().better,
            Some(2)
        );
        let tukey = Settings { tukey: true, ..Settings::default() };
        let metrics =
            [MetricValues { metric: "miscal@10", systems: &values, lower_is_better: true }];
        let f = compare(&metrics, &NAMES, Pairs::All, &tukey).unwrap();
        assert_eq!(f.comparisons.iter().find(|c| (c.a, c.b) == (0, 2)).unwrap().better, Some(2));
    }

    #[test]
    fn the_tukey_hsd_marks_by_its_p_value_and_the_means() {
        let settings = Settings {
            tests: vec![Test::Sign],
            tukey: true,
            permutations: 2_000,
            ..Settings::default()
        };
        let f = family(Pairs::All, &settings);
        assert_eq!(f.marks, Marks::Tukey);
        let hsd = randomised_tukey_hsd(&systems(), 2_000, settings.seed).unwrap();
        for c in f.comparisons.iter().filter(|c| c.metric == 0) {
            let p = hsd.pair(c.a, c.b).unwrap().p_value;
            assert_eq!(c.tukey, Some(p));
            let want = match c.mean_a.partial_cmp(&c.mean_b) {
                _ if p >= settings.alpha => None,
                Some(Ordering::Greater) => Some(c.a),
                Some(Ordering::Less) => Some(c.b),
                _ => None,
            };
            assert_eq!(c.better, want);
        }
        // Bad is beaten on every metric by both others, whatever the sign test says.
        for c in f.comparisons.iter().filter(|c| c.b == 2) {
            assert_eq!(c.better, Some(c.a), "{c:?}");
        }
        assert!(f.comparisons.iter().all(|c| c.tests.len() == 1 && c.tukey.is_some()));
        let no_tukey = family(Pairs::All, &Settings { tukey: false, ..settings });
        assert!(no_tukey.comparisons.iter().all(|c| c.tukey.is_none()));
    }

    #[test]
    fn the_table_has_a_cell_per_column_in_column_order() {
        let settings = Settings {
            tests: vec![Test::Bootstrap, Test::T],
            tukey: true,
            resamples: 500,
            permutations: 500,
            ..Settings::default()
        };
        let f = family(Pairs::All, &settings);
        let columns = f.columns();
        assert_eq!(columns[..4], ["metric", "run_a", "run_b", "n_users"]);
        assert_eq!(
            columns[12..],
            [
                "bootstrap_statistic",
                "bootstrap_p",
                "bootstrap_p_adjusted",
                "bootstrap_lower",
                "bootstrap_upper",
                "t_statistic",
                "t_p",
                "t_p_adjusted",
                "tukey_p",
                "adjustment",
                "better",
            ]
        );
        let c = &f.comparisons[5]; // mrr, mid − bad
        let row = f.row(c, &["ndcg", "mrr"], &NAMES);
        assert_eq!(row.len(), columns.len());
        let at = |name: &str| row[columns.iter().position(|c| c == name).unwrap()];
        assert_eq!(
            (at("metric"), at("run_a"), at("run_b")),
            (Cell::Text("mrr"), Cell::Text("mid"), Cell::Text("bad"))
        );
        assert_eq!(at("n_users"), Cell::Count(10));
        assert_eq!(at("d_z"), Cell::Number(c.dz.unwrap().d_z));
        assert_eq!(at("t_p_adjusted"), Cell::Number(c.tests[1].p_adjusted));
        assert_eq!(at("tukey_p"), Cell::Number(c.tukey.unwrap()));
        assert_eq!(at("adjustment"), Cell::Text("holm"));
        assert_eq!(at("better"), c.better.map_or(Cell::Missing, |s| Cell::Text(NAMES[s])));
        let plain =
            family(Pairs::All, &Settings { tests: vec![Test::Sign], ..Settings::default() });
        assert_eq!(plain.columns().len(), 12 + 3 + 2);
    }

    #[test]
    fn an_undefined_effect_size_is_a_warning_naming_the_metric_and_pair() {
        let a = vec![0.5, 0.6, 0.7];
        let b: Vec<f64> = a.iter().map(|x| x - 0.25).collect();
        let systems = vec![a, b];
        let metrics =
            [MetricValues { metric: "map", systems: &systems, ..MetricValues::default() }];
        let f = compare(&metrics, &["x", "y"], Pairs::All, &Settings::default()).unwrap();
        assert!(f.comparisons[0].dz.is_none());
        assert_eq!(f.warnings.len(), 1);
        assert!(f.warnings[0].starts_with("map, x − y: "), "{:?}", f.warnings);
    }

    #[test]
    fn bad_settings_and_inputs_are_refused_with_what_is_wrong() {
        let systems = systems();
        let metrics =
            [MetricValues { metric: "ndcg", systems: &systems, ..MetricValues::default() }];
        let refuse = |pairs: Pairs, settings: Settings, names: &[&str]| {
            compare(&metrics, names, pairs, &settings).unwrap_err().to_string()
        };
        let d = Settings::default;
        let all = Pairs::All;
        assert!(refuse(all, Settings { tests: vec![], ..d() }, &NAMES).contains("no test"));
        let twice = Settings { tests: vec![Test::T, Test::Sign, Test::T], ..d() };
        assert_eq!(refuse(all, twice, &NAMES), "the test t is asked for twice");
        assert!(refuse(all, Settings { permutations: 0, ..d() }, &NAMES).contains("permutations"));
        assert!(refuse(all, Settings { resamples: 0, ..d() }, &NAMES).contains("resamples"));
        let alpha = refuse(all, Settings { alpha: 1.5, ..d() }, &NAMES);
        assert_eq!(alpha, "alpha 1.5 must lie strictly between 0 and 1");
        let tukey = refuse(Pairs::Baseline(0), Settings { tukey: true, ..d() }, &NAMES);
        assert!(tukey.contains("Tukey HSD compares all pairs"), "{tukey}");
        assert!(refuse(Pairs::Baseline(3), d(), &NAMES).contains("baseline 3"));
        assert!(refuse(all, d(), &NAMES[..2]).contains("3 series of values for 2 systems"));
        let one =
            [MetricValues { metric: "ndcg", systems: &systems[..1], ..MetricValues::default() }];
        let err = compare(&one, &["x"], all, &d()).unwrap_err().to_string();
        assert!(err.contains("at least 2 systems, found 1"), "{err}");
    }

    #[test]
    fn a_statistic_that_fails_names_the_metric_and_the_pair() {
        let mut systems = systems();
        systems[1][3] = f64::NAN;
        let metrics =
            [MetricValues { metric: "ndcg@10", systems: &systems, ..MetricValues::default() }];
        let err = compare(&metrics, &NAMES, Pairs::All, &Settings::default()).unwrap_err();
        assert_eq!(err.to_string(), "ndcg@10, good − mid");
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(cause, "b[3] is NaN: every value must be a finite number");
        let tukey = Settings { tukey: true, ..Settings::default() };
        let err = compare(&metrics, &NAMES, Pairs::All, &tukey).unwrap_err();
        assert_eq!(err.to_string(), "ndcg@10: the randomised Tukey HSD");
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn names_read_back_and_unknown_ones_are_refused() {
        for test in Test::ALL {
            assert_eq!(test.key().parse::<Test>().unwrap(), test);
        }
        assert_eq!("student".parse::<Test>().unwrap(), Test::T);
        assert_eq!("permutation".parse::<Test>().unwrap(), Test::Fisher);
        let err = "welch".parse::<Test>().unwrap_err().to_string();
        assert_eq!(err, "unknown test `welch` (allowed: t, wilcoxon, sign, fisher, bootstrap)");
        for key in ["holm", "bonferroni", "bh", "none"] {
            assert_eq!(adjustment_key(parse_adjustment(key).unwrap()), key);
        }
        assert!(parse_adjustment("fdr").unwrap_err().to_string().contains("unknown adjustment"));
        assert_eq!(adjustment_title(None), "unadjusted");
    }
}
