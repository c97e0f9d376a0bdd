//! The real-data experiment: three recommenders fitted on one split of a real data set,
//! each user's last event held out, ranked among every item the user has not seen (the
//! exact metric) and among `m` negatives drawn uniformly without replacement, repeated
//! over independent draws (the sampled metric and its corrections), as a secondary account
//! describes the paper's MovieLens 1M experiment. Everything is computed by
//! `recs_sampled::versus`, the code of `recs eval --sampled-vs-exact`, and the draw is
//! `recs_split::NegativeSampling`'s, that of `recs run`'s `[judgments] sampled`.
//!
//! The recommenders are ours, chosen before any result to play the roles the secondary
//! account gives its X, Y and Z: a factorisation (implicit ALS, 16 factors), item-based
//! cosine neighbours without sparsification, and the same cut to 10 neighbours, whose
//! scores leave most items at 0 (tied at the bottom). Random scores are the placebo.

use anyhow::{Context, Result};
use recs_core::{DuplicatePolicy, Event, Interactions, ParamValues, TrainData};
use recs_metrics::score_key;
use recs_sampled::versus::{EstimatorTable, Instance, RunValues, UserLists, run_values};
use recs_sampled::{Correction, RankMetric};
use recs_split::{JudgmentOptions, NegativeSampling, Protocol, SampleBy, SampledUser, SplitId};

/// The corrections, in the order of every `[correction]` index; 0 is the uncorrected
/// sampled metric (the toy example's list).
pub(super) use super::CORRECTIONS;

/// One recommender: its label on the page, its catalogue name and parameters.
pub(super) struct Model {
    pub(super) label: &'static str,
    pub(super) name: &'static str,
    pub(super) params: &'static [&'static str],
}

/// X, Y, Z (ours; the roles of the secondary account's), then the placebo.
pub(super) const MODELS: [Model; 4] = [
    Model { label: "X (iALS, 16 factors)", name: "ials", params: &["factors=16"] },
    Model {
        label: "Y (item cosine, every neighbour)",
        name: "item-knn",
        params: &["similarity=cosine", "k=100000"],
    },
    Model {
        label: "Z (item cosine, 10 neighbours)",
        name: "item-knn",
        params: &["similarity=cosine", "k=10"],
    },
    Model { label: "random scores (placebo)", name: "random", params: &[] },
];

/// The metrics, in the order of every `[metric]` index below.
pub(super) const METRICS: [(&str, RankMetric); 4] = [
    ("AUC", RankMetric::Auc),
    ("Recall@10", RankMetric::Recall { k: 10 }),
    ("NDCG@10", RankMetric::Ndcg { cutoff: Some(10) }),
    ("AP", RankMetric::Ap),
];

/// How a data set's last events are held out.
#[derive(Debug, Clone, Copy)]
pub(super) enum HoldOut {
    /// Each user's latest event (by timestamp), as the secondary account's protocol does.
    Last,
    /// One event per user at random (data without timestamps).
    OneAtRandom,
}

/// What one run computed: per recommender, the exact means and each estimator's mean per
/// draw.
pub(super) struct RealRun {
    pub(super) dataset: String,
    pub(super) hold_out: HoldOut,
    /// Negatives drawn per user.
    pub(super) m: usize,
    pub(super) n_users: usize,
    pub(super) n_items: usize,
    pub(super) n_instances: usize,
    /// Full-catalog candidates over the users (what the exact metric ranks).
    pub(super) n_candidates: u64,
    /// Users with fewer than `m` eligible items (they get all of them).
    pub(super) n_short: usize,
    /// `[model]`.
    pub(super) values: Vec<RunValues>,
    /// Draws (independent repetitions of the sampling).
    pub(super) n_draws: usize,
}

impl RealRun {
    /// The exact mean of `model` by `metric`.
    pub(super) fn exact(&self, model: usize, metric: usize) -> f64 {
        self.values[model].exact[metric]
    }

    /// The values of estimator `correction` for `model` by `metric`, one per draw.
    pub(super) fn draws(&self, model: usize, metric: usize, correction: usize) -> &[f64] {
        &self.values[model].estimated[correction][metric]
    }
}

/// Every rating of `ratings` as an event of value 1 (a binary relation), timestamps kept.
pub(super) fn binary(ratings: &Interactions) -> Result<Interactions> {
    let events: Vec<Event> = ratings.events().map(|e| Event { value: 1.0, ..e }).collect();
    Ok(Interactions::from_events(
        ratings.n_users(),
        ratings.n_items(),
        events,
        DuplicatePolicy::Error,
    )?)
}

/// How much of the work a run does: the draws of the negatives, and every `every`-th user
/// evaluated (1: all; the quick run evaluates a subset through the same code, since each
/// user's catalog size needs estimators of its own).
#[derive(Debug, Clone, Copy)]
pub(super) struct Extent {
    pub(super) draws: usize,
    pub(super) every: u32,
}

/// Runs the experiment on `data` (binary): one split (seeded by `seed`), the models
/// fitted with `seed` on its whole training part, and `extent.draws` draws of `m`
/// negatives seeded `seed + 1 ..= seed + draws`.
pub(super) fn run(
    dataset: &str,
    data: &Interactions,
    hold_out: HoldOut,
    m: usize,
    extent: Extent,
    seed: u64,
) -> Result<RealRun> {
    let n_draws = extent.draws;
    let protocol = match hold_out {
        HoldOut::Last => Protocol::TemporalLastN { n: 1, min_train: 1 },
        HoldOut::OneAtRandom => Protocol::LeaveOneOut,
    };
    let split = protocol.split(data, seed, SplitId::default())?;
    let judgments = split.judgments(&JudgmentOptions::implicit())?;
    let samplings: Vec<NegativeSampling> = (1..=n_draws as u64)
        .map(|s| NegativeSampling { negatives: m, by: SampleBy::Uniform, seed: seed + s })
        .collect();
    let train = TrainData::new(split.train(), seed);
    let fitted: Vec<Box<dyn recs_core::Recommender>> = MODELS
        .iter()
        .map(|model| {
            let entry = recs_bench::registry::find(model.name)?;
            entry
                .build_checked(&ParamValues::parse(model.params.iter().copied())?)?
                .fit_dyn(&train)
                .with_context(|| format!("{dataset}: fitting {}", model.label))
        })
        .collect::<Result<_>>()?;

    // One user at a time: its draws are dropped once every model's instances are taken
    // (on MS Web, 22,716 users × 100 draws of 100 positions would hold 0.9 GB).
    let is_relevant = |g: f32| g > 0.0;
    let mut instances: Vec<Vec<Instance>> = vec![Vec::new(); MODELS.len()];
    let (mut n_users, mut n_short, mut n_candidates) = (0, 0, 0u64);
    let (mut scores, mut keys) = (Vec::new(), Vec::new());
    for row in judgments.iter().filter(|row| row.user % extent.every.max(1) == 0) {
        let (relevant, negatives): (Vec<u32>, Vec<u32>) =
            (0..row.items.len() as u32).partition(|&p| is_relevant(row.grades[p as usize]));
        let mut drawn = Vec::with_capacity(samplings.len());
        let mut short = 0;
        for sampling in &samplings {
            let draw = sampling.sample(
                SampledUser::Index(row.user),
                row.items,
                row.grades,
                is_relevant,
                &[],
            );
            short += usize::from(draw.n_negatives < m);
            // The drawn negatives' positions in the user's full row (both ascend).
            let mut positions = Vec::with_capacity(draw.n_negatives);
            let mut at = 0;
            for (&item, &grade) in draw.items.iter().zip(&draw.grades) {
                at += row.items[at..].partition_point(|&i| i < item);
                if !is_relevant(grade) {
                    positions.push(at as u32);
                }
            }
            drawn.push(positions);
        }
        let lists = UserLists { relevant, negatives, drawn };
        if lists.relevant.is_empty() || !lists.is_usable() {
            continue;
        }
        n_users += 1;
        n_short += short;
        n_candidates += row.items.len() as u64;
        for (model, out) in fitted.iter().zip(&mut instances) {
            scores.clear();
            scores.resize(row.items.len(), 0.0);
            model.score(row.user, row.items, &mut scores)?;
            keys.clear();
            keys.extend(scores.iter().map(|&s| score_key(s)));
            recs_sampled::versus::user_instances(&lists, &keys, out);
        }
    }
    anyhow::ensure!(n_users > 0, "{dataset}: no user to evaluate");

    let metrics: Vec<RankMetric> = METRICS.iter().map(|(_, m)| *m).collect();
    let corrections: Vec<Correction> =
        CORRECTIONS.iter().map(|c| c.parse()).collect::<Result<_, _>>()?;
    // The sizes depend on the lists only, the same for every model.
    let table =
        EstimatorTable::build(EstimatorTable::sizes_of(&instances[0]), &metrics, &corrections)?;
    let values = instances
        .iter()
        .map(|i| run_values(i, &table, &metrics, corrections.len(), n_draws))
        .collect();
    let n_instances = instances[0].len();
    Ok(RealRun {
        dataset: dataset.into(),
        hold_out,
        m,
        n_users,
        n_items: data.n_items(),
        n_instances,
        n_candidates,
        n_short,
        values,
        n_draws,
    })
}

/// Rounds to 6 decimals for a table cell.
fn cell(x: f64) -> serde_json::Value {
    serde_json::json!((x * 1e6).round() / 1e6)
}

/// The mean and sample standard deviation of `values`.
fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

impl RealRun {
    /// What was run, in words.
    pub(super) fn describe(&self) -> String {
        let hold_out = match self.hold_out {
            HoldOut::Last => "each user's latest event held out",
            HoldOut::OneAtRandom => "one event per user held out at random",
        };
        let short = match self.n_short {
            0 => String::new(),
            n => format!(" ({n} draws of a user with fewer eligible items took them all)"),
        };
        format!(
            "{}: {hold_out}; {} users, {} instances, {} items; m = {} negatives drawn uniformly \
             without replacement, {} draws{short}",
            self.dataset, self.n_users, self.n_instances, self.n_items, self.m, self.n_draws
        )
    }

    /// Each recommender's exact metrics beside every estimator's mean and spread over the
    /// draws.
    pub(super) fn values_table(&self) -> recs_bench::report::Table {
        let mut rows = Vec::new();
        for (model, spec) in MODELS.iter().enumerate() {
            for (k, (name, _)) in METRICS.iter().enumerate() {
                let mut row = vec![
                    serde_json::json!(spec.label),
                    serde_json::json!(name),
                    cell(self.exact(model, k)),
                ];
                for c in 0..CORRECTIONS.len() {
                    let (mean, sd) = mean_sd(self.draws(model, k, c));
                    row.extend([cell(mean), serde_json::json!(format!("{sd:.3e}"))]);
                }
                rows.push(row);
            }
        }
        let mut columns = vec!["recommender".to_string(), "metric".into(), "exact".into()];
        for c in CORRECTIONS {
            columns.extend([format!("{c} mean"), format!("{c} sd")]);
        }
        recs_bench::report::Table {
            name: format!(
                "{}: exact metrics and each estimator's mean and standard deviation over the \
                 draws",
                self.describe()
            ),
            columns,
            rows,
        }
    }

    /// For each metric and pair of X, Y and Z, the exact order and the share of draws each
    /// estimator orders the same way (a tie is not the order).
    pub(super) fn orders_table(&self) -> recs_bench::report::Table {
        let mut rows = Vec::new();
        for (k, (name, _)) in METRICS.iter().enumerate() {
            for (a, b) in [(0, 1), (0, 2), (1, 2)] {
                let lead = self.exact(a, k) - self.exact(b, k);
                let (first, second) = if lead >= 0.0 { (a, b) } else { (b, a) };
                let mut row = vec![
                    serde_json::json!(name),
                    serde_json::json!(format!(
                        "{} > {}",
                        MODELS[first].label, MODELS[second].label
                    )),
                    cell(lead.abs()),
                ];
                for c in 0..CORRECTIONS.len() {
                    let (x, y) = (self.draws(first, k, c), self.draws(second, k, c));
                    let right = x.iter().zip(y).filter(|(x, y)| x > y).count();
                    row.push(cell(right as f64 / self.n_draws as f64));
                }
                rows.push(row);
            }
        }
        let mut columns = vec!["metric".to_string(), "exact order".into(), "exact lead".into()];
        columns.extend(CORRECTIONS.iter().map(|c| format!("{c}: share of draws right")));
        recs_bench::report::Table {
            name: format!(
                "{}: how often each estimator orders a pair as the exact metric does",
                self.describe()
            ),
            columns,
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When a draw holds every eligible item, the sampled rank is the exact rank: the
    /// uncorrected and rank-estimate values equal the exact ones, for every recommender
    /// and metric, ties included (the item-kNN models tie many items at 0). This checks the
    /// lists, the draw's positions and the scoring end to end.
    #[test]
    fn drawing_every_eligible_item_gives_the_exact_metrics() {
        let (ratings, _) = recs_testkit::synthetic_data();
        let data = binary(&ratings).unwrap();
        let extent = Extent { draws: 2, every: 1 };
        let run = run("synthetic", &data, HoldOut::Last, data.n_items(), extent, 3).unwrap();
        assert_eq!(run.n_instances, run.n_users);
        assert_eq!(run.n_short, 2 * run.n_users);
        for model in 0..MODELS.len() {
            for k in 0..METRICS.len() {
                let exact = run.exact(model, k);
                for c in [0, 1] {
                    for &v in run.draws(model, k, c) {
                        assert!((v - exact).abs() < 1e-12, "{model} {k} {c}: {v} vs {exact}");
                    }
                }
            }
        }
    }

    /// A small draw ranks among fewer items: the sampled AP exceeds the exact one on
    /// average, and sampled AUC stays near the exact AUC.
    #[test]
    fn a_small_draw_overstates_ap_but_not_auc() {
        let (ratings, _) = recs_testkit::synthetic_data();
        let data = binary(&ratings).unwrap();
        let extent = Extent { draws: 20, every: 1 };
        let run = run("synthetic", &data, HoldOut::OneAtRandom, 3, extent, 5).unwrap();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        // Random scores (index 3): AP of a rank among the catalog against among 4 items.
        assert!(mean(run.draws(3, 3, 0)) > run.exact(3, 3) + 0.05);
        assert!((mean(run.draws(3, 0, 0)) - run.exact(3, 0)).abs() < 0.1);
    }
}
