//! `cargo xtask reproduce krichene2020`: Krichene & Rendle, "On Sampled Metrics for Item
//! Recommendation" (KDD 2020). The paper's full text could not be read here; what is
//! known of it, and from which source, is gathered in the project's facts file, and the
//! page says which claims rest on the paper's own words and which on secondary accounts.
//!
//! This run judges the claims the paper makes on its toy example (Table 1, the sampled
//! table and Figure 2), whose expected sampled metrics are exact given the fifteen ranks
//! the paper prints ([`toy`]). Experiments (ids as in `report.json`):
//! - `toy-example` — Table 1's exact metrics, the sampled table's expectations and spreads
//!   at m = 99 (and at the other ends of our choices: m = 100, without replacement), the
//!   metrics at m = 1, and the corrected estimators' expectations;
//! - `figure-2` — the expected sampled metrics of A, B and C against the number of
//!   samples, with the stretches over which their order stays the same;
//! - `real-data` — three recommenders of ours in the roles a secondary account gives the
//!   paper's MovieLens 1M runs, on MovieLens 100K (judged) and MS Web (shown): exact
//!   metrics against sampled and corrected ones over independent draws ([`real`]).

mod check;
mod claims;
mod real;
mod real_claims;
mod toy;

use anyhow::Result;
use recs_bench::report::{Experiment, Report, Table};
use recs_bench::{Extras, Figure, Line};
use recs_sampled::{Correction, RankMetric, Sampling};
use serde_json::{Value, json};

pub(crate) use self::check::check;
use self::real::HoldOut;
use self::toy::{Draw, METRICS, RECOMMENDERS, SAMPLED_TABLE, TABLE_1};
use super::{Lines, Options, finish};

/// The paper's name, as `cargo xtask reproduce` takes it.
const PAPER: &str = "krichene2020";
/// The experiment ids of the report, in order.
const EXPERIMENTS: [&str; 3] = ["toy-example", "figure-2", "real-data"];
/// The claim ids of the report.
const CLAIMS: [&str; 8] = ["K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8"];
/// The real-data experiment's sample size (a secondary account's) and its other end.
const REAL_M: usize = 100;
const REAL_M_OTHER: usize = 99;
/// Real data: 10 independent repetitions (fits and draws) of 10 draws each, 100 draws as
/// a secondary account's, over every user; the quick run's 3 of 3 over every 20th user
/// exercise the same code.
const FULL: real::Extent = real::Extent { reps: 10, draws: 10, every: 1 };
const QUICK: real::Extent = real::Extent { reps: 3, draws: 3, every: 20 };
/// The other partitions of MovieLens 100K run: the held-out event drawn at random among
/// each user's latest of the same second, by seeds `1..=n` of the item order.
const HOLD_OUT_DRAWS_FULL: u64 = 8;
const HOLD_OUT_DRAWS_QUICK: u64 = 2;
/// The sample size the sampled table is read at (a secondary account's; see the claims).
const M: u64 = 99;
/// Figure 2's range of samples for AP, NDCG and AUC, and for Recall@10 (its panels).
const FIGURE_RANGE: u64 = 1000;
const FIGURE_RANGE_RECALL: u64 = 5000;
/// The corrections whose expectations the toy example's table gives, in order.
const CORRECTIONS: [&str; 8] = [
    "sampled",
    "rank-estimate",
    "minimal-bias",
    "monotone",
    "bv:1",
    "bv:0.1",
    "bv:0.01",
    "bv:0.001",
];

/// Rounds to 6 decimals for a table cell (the report keeps what a page may quote).
fn cell(x: f64) -> Value {
    json!((x * 1e6).round() / 1e6)
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let lines = Lines::new();
    let mut report = Report::new(PAPER, options.seed, options.quick);

    lines.say("toy example: exact and expected sampled metrics");
    let at_m = toy::expected_all(Draw::with_replacement(M))?;
    let other_ends = [Draw::with_replacement(M + 1), Draw::without_replacement(M)];
    let at_other_ends: Vec<Vec<[(f64, f64); 4]>> =
        other_ends.iter().map(|&d| toy::expected_all(d)).collect::<Result<_>>()?;
    let one = toy::expected_all(Draw::with_replacement(1))?;

    lines.say("figure 2: expected sampled metrics against the number of samples");
    let ms: Vec<u64> = (1..=FIGURE_RANGE).collect();
    let ms_recall: Vec<u64> = (1..=FIGURE_RANGE_RECALL).collect();
    let sweep = toy::sweep(&ms, Sampling::WithReplacement)?;
    let sweep_without = toy::sweep(&ms, Sampling::WithoutReplacement)?;
    let recall_sweep = recall_only(&ms_recall, Sampling::WithReplacement)?;
    let recall_sweep_without = recall_only(&ms_recall, Sampling::WithoutReplacement)?;

    lines.say("toy example: corrected estimators");
    let corrected = corrections(Draw::with_replacement(M))?;
    let corrected_other: Vec<Vec<CorrectionRow>> =
        other_ends.iter().map(|&d| corrections(d)).collect::<Result<_>>()?;

    let figure = Figure2 {
        ms: &ms,
        sweep: &sweep,
        sweep_without: &sweep_without,
        ms_recall: &ms_recall,
        recall: &recall_sweep,
        recall_without: &recall_sweep_without,
    };
    let toy_tables = vec![
        table_1(),
        sampled_table(&at_m),
        other_ends_table(&other_ends, &at_other_ends),
        one_table(&one),
        corrections_table(&corrected),
    ];
    report.experiments.push(Experiment {
        id: EXPERIMENTS[0].into(),
        protocol: "Table 1's toy example: three recommenders, five instances each, one relevant \
                   item among n = 10,000; expectations over the sampling, exact given the ranks"
            .into(),
        mode: "one relevant item per instance".into(),
        candidates: 3 * 5 * toy::N,
        positives: 3 * 5,
        curves: Vec::new(),
        tables: toy_tables,
    });
    report.experiments.push(Experiment {
        id: EXPERIMENTS[1].into(),
        protocol: "the toy example's expected sampled metrics for every m from 1 to 1,000 (AP, \
                   NDCG, AUC) and to 5,000 (Recall@10), drawn with replacement"
            .into(),
        mode: "one relevant item per instance".into(),
        candidates: 3 * 5 * toy::N,
        positives: 3 * 5,
        curves: Vec::new(),
        tables: vec![figure.stretches_table()],
    });
    lines.say("real data: MovieLens 100K and MS Web, sampled against exact");
    let extent = if options.quick { QUICK } else { FULL };
    let movielens_data = recs_data::load_named("ml-100k", &options.resolver())?;
    let movielens = real::binary(&movielens_data.interactions)?;
    // MovieLens 100K, latest event held out, at m = `m` with the recommenders `models`.
    let movielens_run = |data: &recs_core::Interactions, m: usize, models| {
        real::run("MovieLens 100K", data, HoldOut::Last, m, extent, options.seed, models)
    };
    // Each run also gives the other orders of the held-out item's score ties: only the
    // main run's are read.
    let [main, first, last] = movielens_run(&movielens, REAL_M, &real::MODELS)?;
    let [other_m, ..] = movielens_run(&movielens, REAL_M_OTHER, &real::MODELS)?;
    let [other_ties, ..] =
        movielens_run(&real::items_reversed(&movielens)?, REAL_M, &real::MODELS)?;
    // The held-out event drawn at random among a user's latest of the same second: the
    // other partitions of the data (named after a referee's run).
    let draws = if options.quick { HOLD_OUT_DRAWS_QUICK } else { HOLD_OUT_DRAWS_FULL };
    let mut partitions = Vec::new();
    for draw in 1..=draws {
        let shuffled = real::items_shuffled(&movielens, options.seed ^ draw)?;
        let [run, ..] = movielens_run(&shuffled, REAL_M, &real::MODELS)?;
        partitions.push(run);
    }
    let [z5, ..] = movielens_run(&movielens, REAL_M, &real::MODELS_Z5)?;
    let [z50, ..] = movielens_run(&movielens, REAL_M, &real::MODELS_Z50)?;
    let [x_account, ..] = movielens_run(&movielens, REAL_M, &real::MODELS_X_ACCOUNT)?;
    let [x_secondary, ..] = movielens_run(&movielens, REAL_M, &real::MODELS_X_SECONDARY)?;
    let [x_alpha10, ..] = movielens_run(&movielens, REAL_M, &real::MODELS_X_ALPHA10)?;
    let msweb_data = recs_data::load_named("msweb", &options.resolver())?;
    let [msweb, ..] = real::run(
        "MS Web",
        &msweb_data.interactions,
        HoldOut::OneAtRandom,
        REAL_M,
        extent,
        options.seed,
        &real::MODELS,
    )?;
    report.datasets =
        vec![recs_bench::dataset_entry(&movielens_data), recs_bench::dataset_entry(&msweb_data)];
    report.experiments.push(Experiment {
        id: EXPERIMENTS[2].into(),
        protocol: "each user's held-out item ranked among every item the user has not seen \
                   (exact) and among m negatives drawn uniformly without replacement (sampled, \
                   uncorrected and corrected), over independent repetitions: the \
                   factorisation and the random scores fitted anew in each, the neighbourhood \
                   models once (they make no random choice), and the negatives drawn anew"
            .into(),
        mode: "one relevant item per user".into(),
        candidates: main.n_candidates,
        positives: main.n_instances as u64,
        curves: Vec::new(),
        tables: vec![
            main.values_table(),
            main.orders_table(),
            other_m.orders_table(),
            titled("Held out: the latest event of lowest item index", other_ties.values_table()),
            titled("The held-out item first among its ties", first.values_table()),
            titled("The held-out item last among its ties", last.values_table()),
            titled("X at λ = 60, α = 5", x_account.values_table()),
            titled("X at λ = 60, α = 5", x_account.orders_table()),
            titled("X at λ = 10, α = 0.2", x_secondary.values_table()),
            titled("X at λ = 10, α = 0.2", x_secondary.orders_table()),
            titled("X at α = 10", x_alpha10.orders_table()),
            msweb.values_table(),
            msweb.orders_table(),
        ],
    });
    report.claims = claims::claims(&claims::Evidence {
        at_m: &at_m,
        other_ends: &other_ends,
        at_other_ends: &at_other_ends,
        one: &one,
        figure: &figure,
        corrections: &corrected,
        corrections_other: &corrected_other,
    })?;
    report.claims.extend(real_claims::claims(&real_claims::Evidence {
        main: &main,
        other_m: &other_m,
        other_ties: &other_ties,
        score_ties: [&first, &last],
        partitions: &partitions,
        other_z: [&z5, &z50],
        other_x: [&x_account, &x_secondary, &x_alpha10],
    }));

    let extras = Extras {
        figures: figure.figures(),
        intro: "The toy example's numbers are exact expectations over the sampling, given the \
                ranks Table 1 prints, and the seed does not enter them. On real data the seed \
                draws the split (MS Web's held-out events), the models' initial values and \
                the negatives of every draw."
            .into(),
        notes: String::new(),
        files: Vec::new(),
    };
    let problems = check(&report);
    finish(options, &report, &extras, &problems, &lines)
}

/// `table` with its name prefixed by the setting it was run at.
fn titled(setting: &str, mut table: Table) -> Table {
    table.name = format!("{setting}. {}", table.name);
    table
}

/// Recall@10's expected sampled value for every recommender at each `m` of `ms`:
/// `[m][recommender]`. Only its distribution's first ten terms matter, but the whole law
/// is computed, as for the other metrics.
fn recall_only(ms: &[u64], sampling: Sampling) -> Result<Vec<Vec<f64>>> {
    Ok(toy::sweep(ms, sampling)?
        .into_iter()
        .map(|row| row.iter().map(|v| v[3]).collect())
        .collect())
}

/// The sweeps behind Figure 2.
pub(super) struct Figure2<'a> {
    pub(super) ms: &'a [u64],
    /// `[m][recommender][metric]`, with replacement.
    pub(super) sweep: &'a [Vec<[f64; 4]>],
    /// The same, without replacement.
    pub(super) sweep_without: &'a [Vec<[f64; 4]>],
    pub(super) ms_recall: &'a [u64],
    /// Recall@10, `[m][recommender]`, with and without replacement.
    pub(super) recall: &'a [Vec<f64>],
    pub(super) recall_without: &'a [Vec<f64>],
}

impl Figure2<'_> {
    /// Metric `k`'s values `[m][recommender]` over the figure's range, drawn with or
    /// without replacement (Recall@10 over its own, longer range).
    pub(super) fn values(&self, k: usize, with_replacement: bool) -> Vec<Vec<f64>> {
        if k == 3 {
            return if with_replacement {
                self.recall.to_vec()
            } else {
                self.recall_without.to_vec()
            };
        }
        let sweep = if with_replacement { self.sweep } else { self.sweep_without };
        sweep.iter().map(|row| row.iter().map(|v| v[k]).collect()).collect()
    }

    pub(super) fn ms_of(&self, k: usize) -> &[u64] {
        if k == 3 { self.ms_recall } else { self.ms }
    }

    fn stretches_table(&self) -> Table {
        let mut rows = Vec::new();
        for (k, (name, _)) in METRICS.iter().enumerate() {
            for (first, last, order) in toy::stretches(self.ms_of(k), &self.values(k, true)) {
                rows.push(vec![json!(name), json!(first), json!(last), json!(order)]);
            }
        }
        Table {
            name: "Figure 2: the order of A, B and C (best first) by expected sampled metric, \
                   stretch by stretch of m (with replacement)"
                .into(),
            columns: vec!["metric".into(), "from m".into(), "to m".into(), "order".into()],
            rows,
        }
    }

    fn figures(&self) -> Vec<Figure> {
        METRICS
            .iter()
            .enumerate()
            .map(|(k, (name, _))| {
                let values = self.values(k, true);
                let ms = self.ms_of(k);
                // Every point for m ≤ 1,000, every fifth beyond: the curves are smooth.
                let keep = |i: usize| ms[i] <= 1000 || ms[i].is_multiple_of(5);
                let lines: Vec<Line> = RECOMMENDERS
                    .iter()
                    .enumerate()
                    .map(|(r, rec)| Line {
                        label: format!("recommender {}", rec.name),
                        points: (0..ms.len())
                            .filter(|&i| keep(i))
                            .map(|i| [ms[i] as f64, values[i][r]])
                            .collect(),
                        band: Vec::new(),
                        markers: vec![[M as f64, values[(M - 1) as usize][r]]],
                    })
                    .collect();
                let file = format!("figure-2-{}.svg", name.to_lowercase().replace('@', "-at-"));
                Figure::lines(
                    EXPERIMENTS[1],
                    &file,
                    &format!("Figure 2: expected sampled {name} against the number of samples m"),
                    ["number of samples m", &format!("expected sampled {name}")],
                    &lines,
                )
            })
            .collect()
    }
}

/// One corrected estimator's expectations on the toy example.
pub(super) struct CorrectionRow {
    pub(super) correction: &'static str,
    /// `[metric][recommender]`, for AP, NDCG and Recall@10 (AUC is unbiased uncorrected).
    pub(super) expected: [Vec<f64>; 3],
    /// The standard deviation of the five-instance mean over samples, likewise.
    pub(super) spread: [Vec<f64>; 3],
}

/// The expectations of every correction of `CORRECTIONS` under `draw`.
fn corrections(draw: Draw) -> Result<Vec<CorrectionRow>> {
    let parsed: Vec<Correction> =
        CORRECTIONS.iter().map(|name| name.parse()).collect::<Result<_, _>>()?;
    let metrics: Vec<RankMetric> = METRICS[1..].iter().map(|(_, metric)| *metric).collect();
    let estimators = toy::estimators(&metrics, draw, &parsed)?;
    CORRECTIONS
        .iter()
        .zip(estimators)
        .map(|(&name, by_metric)| {
            let mut expected: [Vec<f64>; 3] = Default::default();
            let mut spread: [Vec<f64>; 3] = Default::default();
            for (k, estimator) in by_metric.iter().enumerate() {
                let values = toy::corrected(estimator)?;
                expected[k] = values.iter().map(|v| v.0).collect();
                spread[k] = values.iter().map(|v| v.1).collect();
            }
            Ok(CorrectionRow { correction: name, expected, spread })
        })
        .collect()
}

fn table_1() -> Table {
    let rows = RECOMMENDERS
        .iter()
        .zip(TABLE_1)
        .map(|(rec, printed)| {
            let mut row = vec![json!(rec.name), json!(format!("{:?}", rec.ranks))];
            row.extend(METRICS.iter().map(|(_, m)| cell(toy::exact(*m, &rec.ranks))));
            row.extend(printed.iter().map(|&v| json!(v)));
            row
        })
        .collect();
    let mut columns = vec!["recommender".to_string(), "exact ranks".to_string()];
    columns.extend(METRICS.iter().map(|(name, _)| (*name).to_string()));
    columns.extend(METRICS.iter().map(|(name, _)| format!("{name} (Table 1)")));
    Table {
        name: "Table 1: the exact metrics (n = 10,000), beside the paper's".into(),
        columns,
        rows,
    }
}

fn sampled_table(at_m: &[[(f64, f64); 4]]) -> Table {
    let rows = RECOMMENDERS
        .iter()
        .zip(at_m)
        .zip(SAMPLED_TABLE)
        .map(|((rec, values), printed)| {
            let mut row = vec![json!(rec.name)];
            for ((mean, spread), (paper_mean, paper_spread)) in values.iter().zip(printed) {
                row.extend([cell(*mean), cell(*spread), json!(paper_mean), json!(paper_spread)]);
            }
            row
        })
        .collect();
    let mut columns = vec!["recommender".to_string()];
    for (name, _) in METRICS {
        columns.extend([
            format!("{name} expected"),
            format!("{name} spread"),
            format!("{name} (paper)"),
            format!("{name} ± (paper)"),
        ]);
    }
    Table {
        name: format!(
            "The sampled table: expected sampled metrics at {} (spread: the standard deviation \
             of the five-instance mean over samples), beside the paper's mean ± spread",
            Draw::with_replacement(M).describe()
        ),
        columns,
        rows,
    }
}

fn other_ends_table(draws: &[Draw], values: &[Vec<[(f64, f64); 4]>]) -> Table {
    let mut rows = Vec::new();
    for (draw, by_rec) in draws.iter().zip(values) {
        for (rec, v) in RECOMMENDERS.iter().zip(by_rec) {
            let mut row = vec![json!(draw.describe()), json!(rec.name)];
            row.extend(v.iter().map(|(mean, _)| cell(*mean)));
            rows.push(row);
        }
    }
    let mut columns = vec!["draw".to_string(), "recommender".to_string()];
    columns.extend(METRICS.iter().map(|(name, _)| format!("{name} expected")));
    Table {
        name: "The sampled table at the other ends of our choices: m = 100, and drawn without \
               replacement"
            .into(),
        columns,
        rows,
    }
}

fn one_table(one: &[[(f64, f64); 4]]) -> Table {
    let auc: Vec<f64> = one.iter().map(|v| v[0].0).collect();
    let rows = METRICS
        .iter()
        .enumerate()
        .map(|(k, (name, _))| {
            let values: Vec<f64> = one.iter().map(|v| v[k].0).collect();
            let mut row = vec![json!(name)];
            row.extend(values.iter().map(|&v| cell(v)));
            row.extend([json!(toy::order(&values)), json!(toy::not_kept(&values, &auc, 0.0))]);
            row
        })
        .collect();
    let mut columns = vec!["metric".to_string()];
    columns.extend(RECOMMENDERS.iter().map(|r| format!("{} expected", r.name)));
    columns.extend(["order".to_string(), "pairs of AUC's order not kept".to_string()]);
    Table {
        name: "At m = 1 (with replacement): expected sampled metrics and their orders".into(),
        columns,
        rows,
    }
}

fn corrections_table(rows_in: &[CorrectionRow]) -> Table {
    let mut rows = Vec::new();
    for (k, (name, metric)) in METRICS[1..].iter().enumerate() {
        for (r, rec) in RECOMMENDERS.iter().enumerate() {
            let exact = toy::exact(*metric, &rec.ranks);
            let mut row = vec![json!(name), json!(rec.name), cell(exact)];
            row.extend(rows_in.iter().map(|c| cell(c.expected[k][r])));
            row.push(cell(toy::constant(*metric)));
            // Spreads in three significant digits: minimal bias's run to 1e8.
            row.extend(rows_in.iter().map(|c| json!(format!("{:.3e}", c.spread[k][r]))));
            rows.push(row);
        }
    }
    let mut columns = vec!["metric".to_string(), "recommender".to_string(), "exact".to_string()];
    columns.extend(rows_in.iter().map(|c| format!("E[{}]", c.correction)));
    columns.push("placebo (prior mean)".into());
    columns.extend(rows_in.iter().map(|c| format!("spread of {}", c.correction)));
    Table {
        name: format!(
            "Corrected estimators at {}: each one's expectation over the sampling (uniform \
             prior over exact ranks), and the spread of one evaluation (the standard deviation \
             of the five-instance mean over samples)",
            Draw::with_replacement(M).describe()
        ),
        columns,
        rows,
    }
}
