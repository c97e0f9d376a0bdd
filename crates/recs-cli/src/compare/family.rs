//! The statistics of `recs compare`: for every pair of runs and every metric, the paired
//! tests asked for, the mean difference and Cohen's `d_z` with their intervals; each
//! test's p-values adjusted over the family of all (pair, metric) comparisons; in the
//! all-pairs mode, optionally the randomised Tukey HSD of each metric; and which run of
//! each comparison is significantly better. Every number comes from `recs-stats`
//! (`docs/statistics.md`); this module only decides what is compared with what.

use std::cmp::Ordering;

use anyhow::Context;
use recs_stats::{
    Adjustment, CohensDz, MeanDifference, WilcoxonMethod, adjust_p_values, cohens_dz,
    fisher_randomisation, mean_difference, paired_bootstrap, paired_t_test, randomised_tukey_hsd,
    sign_test, wilcoxon_signed_rank,
};

use super::values::MetricValues;

/// The confidence level of every interval.
pub(crate) const LEVEL: f64 = 0.95;

/// A paired test, as `--tests` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Test {
    /// Student's paired t-test.
    #[value(alias = "student")]
    T,
    /// The Wilcoxon signed-rank test (scipy's `method="auto"`).
    Wilcoxon,
    /// The sign test (exact binomial).
    Sign,
    /// Fisher's randomisation test (sign-flip permutations, --permutations).
    #[value(alias = "randomisation", alias = "permutation")]
    Fisher,
    /// The paired bootstrap (shift-method p-value, percentile interval, --resamples).
    Bootstrap,
}

impl Test {
    /// The test as `--tests` spells it: the prefix of its keys in every format.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Test::T => "t",
            Test::Wilcoxon => "wilcoxon",
            Test::Sign => "sign",
            Test::Fisher => "fisher",
            Test::Bootstrap => "bootstrap",
        }
    }

    /// The test in a sentence.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Test::T => "the paired t-test",
            Test::Wilcoxon => "the Wilcoxon signed-rank test",
            Test::Sign => "the sign test",
            Test::Fisher => "Fisher's randomisation test",
            Test::Bootstrap => "the paired bootstrap",
        }
    }
}

/// A multiple-comparison adjustment, as `--adjust` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Adjust {
    /// Holm's step-down method (family-wise error rate).
    Holm,
    /// Bonferroni (family-wise error rate).
    Bonferroni,
    /// Benjamini–Hochberg (false discovery rate).
    Bh,
    /// No adjustment.
    None,
}

impl Adjust {
    fn adjustment(self) -> Option<Adjustment> {
        match self {
            Adjust::Holm => Some(Adjustment::Holm),
            Adjust::Bonferroni => Some(Adjustment::Bonferroni),
            Adjust::Bh => Some(Adjustment::BenjaminiHochberg),
            Adjust::None => None,
        }
    }

    /// The adjustment as `--adjust` spells it.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Adjust::Holm => "holm",
            Adjust::Bonferroni => "bonferroni",
            Adjust::Bh => "bh",
            Adjust::None => "none",
        }
    }

    /// The adjustment's name in a sentence.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Adjust::Holm => "Holm",
            Adjust::Bonferroni => "Bonferroni",
            Adjust::Bh => "Benjamini–Hochberg",
            Adjust::None => "unadjusted",
        }
    }
}

/// How the statistics are computed.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The tests, in the order asked; the first one marks significance unless `tukey`.
    pub(crate) tests: Vec<Test>,
    pub(crate) adjust: Adjust,
    pub(crate) permutations: usize,
    pub(crate) resamples: usize,
    /// The seed of every randomised statistic (each is drawn from the seed itself).
    pub(crate) seed: u64,
    /// The randomised Tukey HSD of each metric (all pairs only); it then marks
    /// significance.
    pub(crate) tukey: bool,
    /// The significance level of the marks.
    pub(crate) alpha: f64,
}

/// Which pairs of runs are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pairs {
    /// Every run against run `baseline`: pairs `(run, baseline)` in run order.
    Baseline(usize),
    /// Every pair `(i, j)`, `i < j`, in run order.
    All,
}

impl Pairs {
    /// The pairs `(a, b)` among `k` runs; a comparison is of `a − b`.
    pub(crate) fn list(self, k: usize) -> Vec<(usize, usize)> {
        match self {
            Pairs::Baseline(base) => (0..k).filter(|&s| s != base).map(|s| (s, base)).collect(),
            Pairs::All => (0..k).flat_map(|a| (a + 1..k).map(move |b| (a, b))).collect(),
        }
    }
}

/// What a test adds to its statistic and p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Detail {
    /// `n` users.
    T { n: usize },
    /// `W⁺`, `n'` non-zero differences, and `z` when the normal approximation was used.
    Wilcoxon { w_plus: f64, n: usize, z: Option<f64> },
    /// `n'` non-zero differences.
    Sign { n: usize },
    /// The permutations drawn.
    Fisher { permutations: usize },
    /// The percentile interval of the mean difference and the resamples drawn.
    Bootstrap { lower: f64, upper: f64, resamples: usize },
}

/// One test of one comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Outcome {
    pub(crate) test: Test,
    /// `t`; `min(W⁺, W⁻)`; the number of users with `a > b`; the mean difference (Fisher
    /// and the bootstrap).
    pub(crate) statistic: f64,
    pub(crate) p_value: f64,
    /// The p-value adjusted over the family (the p-value itself under `--adjust none`).
    pub(crate) p_adjusted: f64,
    /// Which way the test's own statistic points: `Greater` when it finds `a` above `b`.
    pub(crate) direction: Ordering,
    pub(crate) detail: Detail,
}

/// One pair of runs on one metric.
#[derive(Debug, Clone)]
pub(crate) struct Comparison {
    /// The index of the metric in [`MetricValues`] order.
    pub(crate) metric: usize,
    pub(crate) a: usize,
    pub(crate) b: usize,
    pub(crate) n_users: usize,
    pub(crate) mean_a: f64,
    pub(crate) mean_b: f64,
    pub(crate) difference: MeanDifference,
    /// `None` when every difference is the same non-zero value (a warning says so).
    pub(crate) dz: Option<CohensDz>,
    /// The tests, in [`Settings::tests`] order.
    pub(crate) tests: Vec<Outcome>,
    /// The Tukey HSD's p-value of the pair, adjusted over the metric's pairs.
    pub(crate) tukey: Option<f64>,
    /// The run significantly better by the marking statistic, if any.
    pub(crate) better: Option<usize>,
}

/// The statistic that decides the marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marks {
    /// A test of `--tests`, after `--adjust`.
    Test(Test),
    /// The randomised Tukey HSD of each metric.
    Tukey,
}

/// Every comparison of a `recs compare`.
pub(crate) struct Family {
    pub(crate) n_pairs: usize,
    pub(crate) n_metrics: usize,
    pub(crate) comparisons: Vec<Comparison>,
    pub(crate) marks: Marks,
    pub(crate) adjust: Adjust,
    pub(crate) warnings: Vec<String>,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Family {
    /// The family each test is adjusted over: "12 comparisons: 4 pairs × 3 metrics, Holm".
    pub(crate) fn describe(&self) -> String {
        format!(
            "{}: {} × {}, {}",
            plural(self.comparisons.len(), "comparison", "comparisons"),
            plural(self.n_pairs, "pair", "pairs"),
            plural(self.n_metrics, "metric", "metrics"),
            self.adjust.title()
        )
    }

    /// The family of the Tukey HSD: "3 pairs of 3 runs, within each metric".
    pub(crate) fn describe_tukey(&self, n_runs: usize) -> String {
        format!("{} of {n_runs} runs, within each metric", plural(self.n_pairs, "pair", "pairs"))
    }
}

fn ordering(x: f64) -> Ordering {
    x.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// Runs `test` on `a − b`.
fn run_test(test: Test, a: &[f64], b: &[f64], settings: &Settings) -> recs_stats::Result<Outcome> {
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

/// Compares the runs named `names` on every metric of `metrics`.
///
/// # Errors
/// An input `recs-stats` refuses (a non-finite value), named with its metric and pair.
pub(crate) fn compare(
    metrics: &[MetricValues],
    names: &[&str],
    pairs: Pairs,
    settings: &Settings,
) -> anyhow::Result<Family> {
    let list = pairs.list(names.len());
    let mut comparisons = Vec::with_capacity(list.len() * metrics.len());
    let mut warnings = Vec::new();
    for (m, values) in metrics.iter().enumerate() {
        let tukey = if settings.tukey {
            let hsd = randomised_tukey_hsd(&values.systems, settings.permutations, settings.seed)
                .with_context(|| format!("{}: the randomised Tukey HSD", values.metric))?;
            Some(hsd)
        } else {
            None
        };
        for &(a, b) in &list {
            let (x, y) = (&values.systems[a], &values.systems[b]);
            let about = || format!("{}, {} − {}", values.metric, names[a], names[b]);
            let difference = mean_difference(x, y, LEVEL).with_context(about)?;
            let dz = cohens_dz(x, y, LEVEL).map_err(|e| warnings.push(format!("{}: {e}", about())));
            let tests = settings
                .tests
                .iter()
                .map(|&test| run_test(test, x, y, settings).with_context(about))
                .collect::<anyhow::Result<Vec<_>>>()?;
            comparisons.push(Comparison {
                metric: m,
                a,
                b,
                n_users: x.len(),
                mean_a: values.mean(a),
                mean_b: values.mean(b),
                difference,
                dz: dz.ok(),
                tests,
                tukey: tukey.as_ref().and_then(|h| h.pair(a, b)).map(|p| p.p_value),
                better: None,
            });
        }
    }
    if let Some(method) = settings.adjust.adjustment() {
        for t in 0..settings.tests.len() {
            let p: Vec<f64> = comparisons.iter().map(|c| c.tests[t].p_value).collect();
            for (c, q) in comparisons.iter_mut().zip(adjust_p_values(&p, method)?) {
                c.tests[t].p_adjusted = q;
            }
        }
    }
    let marks = match (settings.tukey, settings.tests.first()) {
        (true, _) => Marks::Tukey,
        (false, Some(&test)) => Marks::Test(test),
        (false, None) => anyhow::bail!("--tests names no test"),
    };
    for c in &mut comparisons {
        let (p, direction) = match marks {
            Marks::Tukey => (c.tukey, c.mean_a.partial_cmp(&c.mean_b)),
            Marks::Test(_) => (Some(c.tests[0].p_adjusted), Some(c.tests[0].direction)),
        };
        c.better = match (p, direction) {
            (Some(p), Some(Ordering::Greater)) if p < settings.alpha => Some(c.a),
            (Some(p), Some(Ordering::Less)) if p < settings.alpha => Some(c.b),
            _ => None,
        };
    }
    Ok(Family {
        n_pairs: list.len(),
        n_metrics: metrics.len(),
        comparisons,
        marks,
        adjust: settings.adjust,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_list_every_pair_once_in_run_order() {
        assert_eq!(Pairs::All.list(3), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(Pairs::Baseline(1).list(3), [(0, 1), (2, 1)]);
        assert!(Pairs::All.list(1).is_empty());
    }

    #[test]
    fn the_family_is_described_with_its_counts_and_adjustment() {
        let family = Family {
            n_pairs: 1,
            n_metrics: 1,
            comparisons: Vec::new(),
            marks: Marks::Test(Test::T),
            adjust: Adjust::Bh,
            warnings: Vec::new(),
        };
        assert_eq!(family.describe(), "0 comparisons: 1 pair × 1 metric, Benjamini–Hochberg");
    }
}
