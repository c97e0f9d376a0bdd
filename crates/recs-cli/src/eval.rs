//! `recs eval`: evaluate a file of scores from any system against a qrels file.
//!
//! Definitions of every printed number: `docs/metrics.md`. File formats: the
//! `recs_metrics::io` documentation.

use std::path::{Path, PathBuf};

use anyhow::Context;
use recs_metrics::io::{Candidates, Run, RunFormat, read_qrels, write_points_csv};
use recs_metrics::{
    HeadRule, Metric, Options, PerUser, Popularity, Report, Scored, TieBreak, ZeroPolicy,
    bootstrap_interval, evaluate_with, paired_t_test, per_user_with, roc1, roc2, t_interval,
    wilcoxon_signed_rank,
};
use serde_json::{Map, Value, json};

use recs_sampled::versus::CorrectedMetric;
use recs_split::SampleBy;

use crate::candidates::Policy;
use crate::reading::Reading;

/// Evaluate scores (a run) against judgments (qrels) with exact, tie-aware metrics.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Qrels: `user<TAB>item<TAB>grade` per candidate (grade 0 = not relevant), TREC
    /// `qid iter doc grade`, or a Parquet or Arrow IPC file with columns `user`, `item`,
    /// `grade`.
    #[arg(long)]
    qrels: PathBuf,
    /// Run: `user<TAB>item<TAB>score`, TREC `qid Q0 doc rank score tag`, or a Parquet or
    /// Arrow IPC file with columns `user`, `item`, `score`. Given once, except with
    /// --sampled-vs-exact, which compares every run given.
    #[arg(long, required_unless_present = "user_factors", conflicts_with = "user_factors")]
    run: Vec<PathBuf>,
    /// Instead of a run: the user factors of a factor model, a `.npy` file (a 2-D
    /// float32 or float64 array, row r = user id r) or a Parquet or Arrow IPC file (a
    /// column `id`, and the factors as one list column or one number column per
    /// dimension). Scores are the dot products with --item-factors, computed by the exact
    /// kernel of `recs run`, and evaluated on the full catalog (every item row but the
    /// user's --train items) in a stream: no score is listed, memory grows with users +
    /// items + graded pairs.
    #[arg(long, value_name = "FILE", requires_all = ["item_factors", "train"])]
    user_factors: Option<PathBuf>,
    /// With --user-factors: the item factors, in the same formats (row r = item id r in
    /// a `.npy` file, rows named by `id` in a columnar one).
    #[arg(long, value_name = "FILE", requires = "user_factors")]
    item_factors: Option<PathBuf>,
    /// With --user-factors: bytes of the streamed evaluation's block buffers and partial
    /// states together, in MiB (as `recs run --memory-budget-mib`).
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    memory_budget_mib: u64,
    /// With --user-factors: where the catalog is scored and counted, `cpu`, `cuda` (an
    /// NVIDIA GPU, in a build with the `cuda` feature) or `cuda-emulator` (the GPU's
    /// kernels compiled for the CPU by the machine's C++ compiler: the GPU path checked
    /// without a GPU, slowly); the report is the same byte for byte.
    #[arg(long, value_name = "DEVICE", default_value = "cpu", requires = "user_factors")]
    device: recs_bench::EvalDevice,
    /// With --device cuda: GPU memory held at once, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 2048, requires = "user_factors")]
    device_memory_mib: u64,
    /// No progress bar (it is drawn only on a terminal, with --user-factors).
    #[arg(long)]
    quiet: bool,
    /// Comma-separated metrics: roc, croc, user_auc, p@N, r@N, f1@N, hit@N, ndcg@K,
    /// ndcg_exp@K, ap@K, map, mrr, half_life@A, coverage@N; with --train, arp@N,
    /// aplt@N, aclt@N, epc@N, epc_flat@N, efd@N, efd_flat@N, miuf@N, serendipity@N,
    /// gini@N, entropy@N, poprsp@N, popreo@N; with --attributes, ild@N, ild_disc@N; with both,
    /// miscal@N; and cremonesi2008's
    /// roc2@N (pooled and user-averaged TPR/FPR of every user's top N) and roc1@T
    /// (TPR/FPR of "score >= T" against "grade >= T", for runs whose scores are
    /// predicted ratings on the grades' scale). With `--candidates sampled:N` (uniform),
    /// corrected sampled metrics `M~E`: M a metric of one relevant item's rank (auc, r@k,
    /// hit@k, p@k, ap, mrr, ndcg, ndcg@k) estimated from its sampled rank by E (sampled,
    /// rank-estimate, minimal-bias, monotone, bv:γ), as `ndcg@10~bv:0.1`. With
    /// --sampled-vs-exact, metrics of one relevant item's rank: auc, r@k (hit@k), p@k, ap
    /// (mrr), ndcg, ndcg@k [default: roc,croc,p@10,r@10,ndcg@10,map,mrr; with
    /// --sampled-vs-exact: auc,r@10,ndcg@10,ap]
    #[arg(long)]
    metrics: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Write the ROC and CROC curves as CSV (`roc.csv`, `croc.csv`) into this directory.
    #[arg(long)]
    curves: Option<PathBuf>,
    /// A candidate is relevant when its grade is at least this.
    #[arg(long, default_value_t = 1.0)]
    rel_threshold: f32,
    /// Run file format (also of the --compare run): `auto` (detected from the first
    /// line), `tsv` or `trec`.
    #[arg(long, default_value_t)]
    format: RunFormat,
    /// Which pairs are candidates: `qrels` (the qrels list every candidate, grade 0 = not
    /// relevant; run lines for other pairs are ignored) or `run` (TREC: the run's items
    /// are the candidates, unjudged ones not relevant; relevant items the run does not
    /// retrieve count in recall, AP and NDCG denominators but are never ranked; users in
    /// both files; trec_eval's measures) or `catalog` (every item of the qrels and of
    /// --train that the user has no training event with; the qrels need only the graded
    /// items) or `sampled:N`, `sampled:N:uniform`, `sampled:N:popularity` (each user's
    /// relevant catalog candidates and N of its other ones, drawn without replacement,
    /// uniformly or in proportion to their training events, seeded by --seed and the
    /// user's id) or `file:FILE` (exactly the `user<TAB>item` pairs of a file written by
    /// --write-candidates; a relevant item of the qrels missing from it is an error)
    /// [default: `run` for a TREC run, `qrels` otherwise]
    #[arg(long, value_name = "POLICY")]
    candidates: Option<Policy>,
    /// The training events, `user item ...` per line (delimiter and header found from the
    /// file; further columns ignored): the catalog of `--candidates catalog` and
    /// `sampled:N`, and the items' popularity of arp@N, aplt@N, aclt@N, epc@N, efd@N,
    /// miuf@N, gini@N and entropy@N, and each user's history of miscal@N (docs/metrics.md,
    /// "Beyond accuracy").
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    #[command(flatten)]
    head: crate::facts::HeadArgs,
    /// Write the candidates evaluated (any policy) as `user<TAB>item` lines under a
    /// `user<TAB>item` header, sorted by user then item (ids in numeric order when all are
    /// integers, byte order otherwise), for `--candidates file:FILE` to read back.
    #[arg(long, value_name = "FILE")]
    write_candidates: Option<PathBuf>,
    /// Order of equal scores: `expected` (expected value over random orders),
    /// `item-ascending` or `item-descending` (by item index; also `item-asc`, `item-desc`).
    #[arg(long, default_value_t)]
    ties: TieBreak,
    /// Users without a relevant candidate: `exclude` (from means), `zero` (counted as 0,
    /// as trec_eval does) or `ignatov` (the ignatov2010 conventions) [default: `zero`
    /// with `--candidates run`, `exclude` otherwise]
    #[arg(long)]
    zero: Option<ZeroPolicy>,
    /// Upper false-alarm rate of the partial AUCs.
    #[arg(long, default_value_t = 0.3)]
    max_fpr: f64,
    /// For every per-user mean (p, r, f1, hit, ndcg, ndcg_exp, ap, map, mrr), add 95%
    /// intervals over users: Student t (`<metric>_ci95_t`) and percentile bootstrap
    /// (`<metric>_ci95_bootstrap`, seeded by --seed).
    #[arg(long)]
    intervals: bool,
    /// Seed of the negatives drawn by `--candidates sampled:N` (each user's draw comes from
    /// this seed and the user's id) and of the bootstrap resampling of --intervals.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Number of bootstrap resamples of --intervals.
    #[arg(long, default_value_t = 1000)]
    resamples: usize,
    /// User groups, `user<TAB>group` per line (e.g. gender or occupation from
    /// MovieLens' `u.user`): every per-user mean broken down by group, with the mean
    /// absolute difference between the group means and its 95% bootstrap interval
    /// (--resamples, seeded by --seed).
    #[arg(long, value_name = "FILE")]
    user_groups: Option<PathBuf>,
    /// Item groups, `item<TAB>group` per line (e.g. popular and long-tail items, a
    /// provider, a genre): every per-user mean that reads relevance computed again per
    /// group with only the group's items relevant, with the mean absolute difference
    /// between the group means and its 95% bootstrap interval over users (--resamples,
    /// seeded by --seed). Items without a line are relevant in no group.
    #[arg(long, value_name = "FILE")]
    item_groups: Option<PathBuf>,
    /// A second run on the same qrels: for every per-user mean, both runs' means and the
    /// paired t-test and Wilcoxon signed-rank test of (run − compare) over users.
    #[arg(long, value_name = "RUN2")]
    compare: Option<PathBuf>,
    /// Sampled against exact, side by side: every relevant item of every user ranked among
    /// the user's full-catalog negatives (exact) and among N of them drawn as
    /// `--candidates sampled:N` draws them (`N`, `N:uniform`, `N:popularity`), for each of
    /// --seeds seeds; for each run (--run, as many as given) and metric, the exact mean,
    /// the sampled and corrected means of each seed with their error, and across runs
    /// Kendall's τ and the reversed pairs (docs/cli.md). Needs --train. With
    /// --user-factors instead of runs, the factors' scores are streamed, never listed.
    #[arg(
        long,
        value_name = "N[:BY]",
        requires = "train",
        conflicts_with_all = [
            "candidates", "compare", "intervals", "curves",
            "write_candidates", "ballista", "zero",
        ]
    )]
    sampled_vs_exact: Option<String>,
    /// With --sampled-vs-exact: how many draws; draw s (from 0) uses seed --seed + s.
    #[arg(long, value_name = "K", default_value_t = 5, requires = "sampled_vs_exact")]
    seeds: usize,
    /// With --sampled-vs-exact: the estimators, comma-separated: `sampled` (none),
    /// `rank-estimate`, `minimal-bias`, `monotone`, `bv:γ` (0 < γ ≤ 1).
    #[arg(
        long,
        value_name = "LIST",
        default_value = crate::sampled_vs_exact::DEFAULT_CORRECTIONS,
        requires = "sampled_vs_exact"
    )]
    corrections: String,
    /// Where the evaluation runs: `in-process` (the files read into memory here) or
    /// `datafusion` (Parquet qrels and run, planned and run by Apache DataFusion on every
    /// core; `--candidates qrels`, expected ties; the same numbers, bit for bit; needs a
    /// `recs` built with the `datafusion` feature).
    #[arg(long, value_enum, default_value_t = Engine::InProcess)]
    engine: Engine,
    /// With `--engine datafusion`: run on the Apache Ballista cluster whose scheduler is at
    /// URL (`df://host:50050`), whose scheduler and executors registered recs' functions
    /// (docs/scaling.md); every executor must read the files at the same paths. Needs a
    /// `recs` built with the `ballista` feature.
    #[arg(long, value_name = "URL")]
    ballista: Option<String>,
}

/// The engines `recs eval` runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Engine {
    /// Read the files into memory and evaluate here.
    InProcess,
    /// Apache DataFusion over Parquet files.
    Datafusion,
}

/// A cremonesi2008 technique asked for by name (`roc1@T`, `roc2@N`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cremonesi {
    Roc1(f32),
    Roc2(usize),
}

/// The metrics asked for, by who computes them.
#[derive(Debug, Default)]
struct Asked {
    /// The library's.
    library: Vec<Metric>,
    /// cremonesi2008's.
    cremonesi: Vec<Cremonesi>,
    /// Corrected sampled metrics (`ndcg@10~bv:0.1`).
    corrected: Vec<CorrectedMetric>,
}

/// Splits the metric list into the library's metrics, the cremonesi2008 ones and the
/// corrected sampled ones.
fn parse_metrics(text: &str) -> anyhow::Result<Asked> {
    let mut asked = Asked::default();
    let Asked { library, cremonesi, corrected } = &mut asked;
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let lower = name.to_ascii_lowercase();
        if CorrectedMetric::is_named(&lower) {
            let c = lower
                .parse::<CorrectedMetric>()
                .map_err(|e| anyhow::anyhow!("unknown metric {name:?}: {e}"))?;
            if !corrected.contains(&c) {
                corrected.push(c);
            }
        } else if let Some(n) = lower.strip_prefix("roc2@") {
            match n.parse::<usize>() {
                Ok(n) if n > 0 => cremonesi.push(Cremonesi::Roc2(n)),
                _ => anyhow::bail!("unknown metric {name:?}: roc2@N needs a list length N >= 1"),
            }
        } else if let Some(t) = lower.strip_prefix("roc1@") {
            match t.parse::<f32>() {
                Ok(t) if t.is_finite() => cremonesi.push(Cremonesi::Roc1(t)),
                _ => anyhow::bail!("unknown metric {name:?}: roc1@T needs a finite threshold T"),
            }
        } else {
            library.push(name.parse::<Metric>()?);
        }
    }
    Ok(asked)
}

/// Refuses corrected sampled metrics (`ndcg@10~bv:0.1`) where they cannot be computed,
/// saying `why`.
fn refuse_corrected(corrected: &[CorrectedMetric], why: &str) -> anyhow::Result<()> {
    match corrected.first() {
        None => Ok(()),
        Some(c) => anyhow::bail!(
            "{} is a corrected sampled metric, computed under --candidates sampled:N \
             (uniform) only: {why}",
            c
        ),
    }
}

/// The columns of `values` whose metric is a per-user mean.
fn user_mean_columns(values: &PerUser) -> impl Iterator<Item = usize> + '_ {
    (0..values.metrics().len()).filter(|&c| values.metrics()[c].is_user_mean())
}

impl Args {
    /// How the runs are read against the qrels.
    fn reading(&self) -> Reading<'_> {
        Reading {
            qrels: &self.qrels,
            train: self.train.as_deref(),
            candidates: self.candidates.as_ref(),
            format: self.format,
            seed: self.seed,
            rel_threshold: self.rel_threshold,
            train_for_popularity: false,
        }
    }
}

/// The value of `result`, or `None` after recording its error as a warning about `about`
/// (an undefined interval or test is reported, not fatal).
fn or_warn<T>(
    result: recs_metrics::Result<T>,
    about: &str,
    warnings: &mut Vec<String>,
) -> Option<T> {
    result.map_err(|e| warnings.push(format!("{about}: {e}"))).ok()
}

/// The 95% intervals of one per-user mean.
struct Intervals {
    key: String,
    t: Option<[f64; 2]>,
    bootstrap: Option<[f64; 2]>,
}

fn intervals(
    values: &PerUser,
    resamples: usize,
    seed: u64,
    warnings: &mut Vec<String>,
) -> Vec<Intervals> {
    user_mean_columns(values)
        .map(|column| {
            let key = values.metrics()[column].to_string();
            let sample = values.column(column);
            let t = or_warn(t_interval(&sample), &key, warnings).map(|i| [i.lower, i.upper]);
            let bootstrap = or_warn(bootstrap_interval(&sample, resamples, seed), &key, warnings)
                .map(|i| [i.lower, i.upper]);
            Intervals { key, t, bootstrap }
        })
        .collect()
}

/// One per-user mean of two runs and the paired tests of their difference.
struct Comparison {
    key: String,
    mean_run: Option<f64>,
    mean_compare: Option<f64>,
    n_pairs: usize,
    t: Option<(f64, f64)>,
    wilcoxon: Option<(f64, f64, usize)>,
}

fn compare(a: &PerUser, b: &PerUser, warnings: &mut Vec<String>) -> Vec<Comparison> {
    user_mean_columns(a)
        .map(|column| {
            let key = a.metrics()[column].to_string();
            let (x, y) = (a.column(column), b.column(column));
            let n_pairs = x.iter().zip(&y).filter(|(p, q)| !p.is_nan() && !q.is_nan()).count();
            let about = format!("compare {key}");
            let t =
                or_warn(paired_t_test(&x, &y), &about, warnings).map(|r| (r.statistic, r.p_value));
            let wilcoxon = or_warn(wilcoxon_signed_rank(&x, &y), &about, warnings)
                .map(|r| (r.statistic, r.p_value, r.n));
            Comparison {
                key,
                mean_run: a.summary(column).value,
                mean_compare: b.summary(column).value,
                n_pairs,
                t,
                wilcoxon,
            }
        })
        .collect()
}

/// `(key, value)` of the cremonesi2008 techniques.
fn cremonesi_values(
    asked: &[Cremonesi],
    scored: &Scored<'_>,
    threshold: f32,
) -> anyhow::Result<Vec<(String, Option<f64>)>> {
    let defined = |v: f64| (!v.is_nan()).then_some(v);
    let mut out = Vec::new();
    for &c in asked {
        match c {
            Cremonesi::Roc2(n) => {
                let point = roc2(scored, &[n], threshold)[0];
                out.push((format!("roc2_tpr@{n}"), defined(point.pooled.tpr())));
                out.push((format!("roc2_fpr@{n}"), defined(point.pooled.fpr())));
                out.push((format!("roc2_user_tpr@{n}"), defined(point.mean_tpr)));
                out.push((format!("roc2_user_fpr@{n}"), defined(point.mean_fpr)));
            }
            Cremonesi::Roc1(t) => {
                let actual: Vec<f32> =
                    scored.judgments().iter().flat_map(|u| u.grades.iter().copied()).collect();
                let point = roc1(scored.scores(), &actual, &[t])?[0];
                out.push((format!("roc1_tpr@{t}"), defined(point.counts.tpr())));
                out.push((format!("roc1_fpr@{t}"), defined(point.counts.fpr())));
            }
        }
    }
    Ok(out)
}

fn interval_json(v: Option<[f64; 2]>) -> Value {
    v.map_or(Value::Null, |[lo, hi]| json!([lo, hi]))
}

fn number_json(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

fn text(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".into(), |x| format!("{x:.6}"))
}

/// The metrics asked for when `--metrics` is not given.
const DEFAULT_METRICS: &str = "roc,croc,p@10,r@10,ndcg@10,map,mrr";

/// `--sampled-vs-exact`: the options it does not take refused, the rest handed over.
fn sampled_vs_exact(args: &Args, draw: &str) -> anyhow::Result<()> {
    let refused = [
        (args.engine != Engine::InProcess, "--engine datafusion"),
        (
            args.ties != TieBreak::Expected,
            "--ties other than expected (its numbers are expectations over the orders of ties)",
        ),
        (args.device != recs_bench::EvalDevice::Cpu, "--device other than cpu"),
    ];
    if let Some((_, what)) = refused.iter().find(|(refused, _)| *refused) {
        anyhow::bail!("--sampled-vs-exact does not take {what}");
    }
    let Some(train) = &args.train else {
        anyhow::bail!("--sampled-vs-exact needs --train FILE: the training events");
    };
    crate::sampled_vs_exact::run(&crate::sampled_vs_exact::Request {
        qrels: &args.qrels,
        train,
        runs: &args.run,
        format: args.format,
        draw,
        seed: args.seed,
        n_seeds: args.seeds,
        metrics: args.metrics.as_deref().unwrap_or(crate::sampled_vs_exact::DEFAULT_METRICS),
        corrections: &args.corrections,
        threshold: args.rel_threshold,
        json: args.json,
        factors: args
            .user_factors
            .as_deref()
            .zip(args.item_factors.as_deref())
            .map(|(users, items)| crate::factors::FactorFiles { users, items }),
        memory_budget: usize::try_from(args.memory_budget_mib.saturating_mul(1 << 20))
            .unwrap_or(usize::MAX),
        progress: !args.quiet,
    })
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    if let Some(draw) = &args.sampled_vs_exact {
        return sampled_vs_exact(&args, draw);
    }
    if args.run.len() > 1 {
        anyhow::bail!(
            "--run is given once (several runs are compared by --sampled-vs-exact; a second \
             run's paired tests are --compare RUN2)"
        );
    }
    let Asked { library: mut metrics, cremonesi, corrected } =
        parse_metrics(args.metrics.as_deref().unwrap_or(DEFAULT_METRICS))?;
    if args.curves.is_some() {
        for m in [Metric::Roc, Metric::Croc] {
            if !metrics.contains(&m) {
                metrics.push(m);
            }
        }
    }
    if args.resamples == 0 {
        anyhow::bail!("--resamples must be at least 1");
    }
    let reads_lists = |m: &&Metric| m.list_depth().is_some();
    if let Some(m) = metrics.iter().find(reads_lists).filter(|_| args.engine == Engine::Datafusion)
    {
        anyhow::bail!(
            "{m} reads each user's top-N list, which --engine datafusion does not keep; \
             evaluate in process"
        );
    }
    let sources = crate::facts::Sources::read(&metrics, args.train.as_deref(), &args.head)?;
    if args.item_groups.is_some() && (args.run.is_empty() || args.engine == Engine::Datafusion) {
        anyhow::bail!(
            "--item-groups evaluates a run's scores once per item group, in process: give \
             --run, without --user-factors or --engine datafusion"
        );
    }
    let Some(run_path) = args.run.first().cloned() else {
        refuse_corrected(&corrected, "--user-factors ranks the full catalog")?;
        return run_factors(&args, &metrics, &cremonesi, &sources);
    };
    let reading = Reading { train_for_popularity: sources.reads_train(), ..args.reading() };
    let policy = reading.policy(&run_path)?;
    match &policy {
        Policy::Sampled { by: SampleBy::Uniform, .. } => {}
        Policy::Sampled { .. } => refuse_corrected(
            &corrected,
            "their estimators assume uniform draws, and --candidates draws by popularity",
        )?,
        other => refuse_corrected(
            &corrected,
            &format!("they correct a sampled rank, and --candidates is {other}"),
        )?,
    }
    if args.ballista.is_some() && args.engine != Engine::Datafusion {
        anyhow::bail!("--ballista runs the DataFusion engine: add --engine datafusion");
    }
    if args.engine == Engine::Datafusion {
        refuse_corrected(&corrected, "the DataFusion engine does not compute them")?;
        return run_on_datafusion(&args, &run_path, &metrics, &cremonesi, &policy);
    }
    let mut extra_warnings = Vec::new();
    let built = reading.candidate_set(&policy, read_qrels(&args.qrels)?, &mut extra_warnings)?;
    let (read, catalog_negatives) = (built.qrels, built.catalog_negatives);
    let (candidates, run) = reading.run(&run_path, &read, &policy, &mut extra_warnings)?;
    let qrels = candidates.as_ref().unwrap_or(&read);
    if let Some(path) = &args.write_candidates {
        crate::candidates::write(path, qrels)?;
    }
    let trec = policy.reading() == Candidates::Run;
    let options = policy.reading().options(args.rel_threshold, args.ties, args.zero);
    let scored = Scored::new(&qrels.judgments, &run.scores)?;
    let known = sources.of_qrels(qrels)?;
    let mut report = evaluate_with(
        &scored,
        &metrics,
        &options,
        args.max_fpr,
        args.curves.is_some(),
        known.facts(),
    )?;
    report.warnings.append(&mut extra_warnings);
    report.values.extend(cremonesi_values(&cremonesi, &scored, options.threshold)?);
    if !corrected.is_empty() {
        let sizes = catalog_negatives.as_deref().context("a sampled draw knows its catalog")?;
        let means = crate::corrected::values(&corrected, &scored, sizes, options.threshold)?;
        report.warnings.extend(means.warning());
        report.values.extend(means.values);
    }

    let has_user_means = metrics.iter().any(Metric::is_user_mean);
    let wants_per_user = args.intervals || args.compare.is_some() || args.user_groups.is_some();
    if wants_per_user && !has_user_means {
        report.warnings.push(format!(
            "--intervals, --compare and --user-groups apply to per-user means ({}); none was \
             asked for",
            Metric::USER_MEANS
        ));
    }
    // The per-user values `evaluate` computed for the means; nothing is ranked again.
    let values = if wants_per_user && has_user_means { report.per_user.take() } else { None };
    let intervals = match (&values, args.intervals) {
        (Some(v), true) => intervals(v, args.resamples, args.seed, &mut report.warnings),
        _ => Vec::new(),
    };
    let by_group = match (&values, &args.user_groups) {
        (Some(v), Some(path)) => {
            let warnings = &mut report.warnings;
            crate::groups::breakdown(v, qrels, path, args.resamples, args.seed, warnings)?
        }
        _ => crate::groups::ByGroup::none(),
    };
    let by_item_group = match &args.item_groups {
        Some(path) => crate::groups::item_breakdown(
            crate::groups::Evaluated {
                qrels,
                scores: &run.scores,
                metrics: &metrics,
                options: &options,
                facts: known.facts(),
            },
            path,
            args.resamples,
            args.seed,
            &mut report.warnings,
        )?,
        None => crate::groups::ByGroup::none(),
    };
    let comparison = match (&values, &args.compare) {
        (Some(a), Some(path)) => {
            let (other_candidates, other) =
                reading.run(path, &read, &policy, &mut report.warnings)?;
            let other_qrels = other_candidates.as_ref().unwrap_or(&read);
            if other_qrels.judgments.users() != qrels.judgments.users() {
                anyhow::bail!(
                    "{} and {} rank items for different users; paired tests need the same \
                     users (with --candidates run, every user of the qrels needs lines in both)",
                    run_path.display(),
                    path.display()
                );
            }
            if other.n_missing > 0 && !trec {
                report.warnings.push(format!(
                    "{} of {} candidates have no score in {} and rank lowest",
                    other.n_missing,
                    report.n_candidates,
                    path.display()
                ));
            }
            let scored_other = Scored::new(&other_qrels.judgments, &other.scores)?;
            let other_known = sources.of_qrels(other_qrels)?;
            let b = per_user_with(&scored_other, a.metrics(), &options, other_known.facts())?;
            Some((path.clone(), other, compare(a, &b, &mut report.warnings)))
        }
        _ => None,
    };

    write_curves(&args, &report)?;
    let shown = Shown {
        policy: &policy,
        options: &options,
        popularity: known.popularity.as_ref(),
        groups: &by_group,
        item_groups: &by_item_group,
    };
    print(&args, &report, shown, run.n_ignored, &intervals, comparison.as_ref())
}

/// `--curves DIR`: the ROC and CROC curves of `report` as CSV.
fn write_curves(args: &Args, report: &Report) -> anyhow::Result<()> {
    if let Some(dir) = &args.curves {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        if let Some(c) = &report.roc {
            write_points_csv(dir.join("roc.csv"), &c.points())?;
        }
        if let Some(c) = &report.croc {
            write_points_csv(dir.join("croc.csv"), &c.points())?;
        }
    }
    Ok(())
}

/// `--user-factors`: the factors' dot products streamed over the full catalog, printed
/// as a run's report is (the same keys, `candidates: catalog`).
fn run_factors(
    args: &Args,
    metrics: &[Metric],
    cremonesi: &[Cremonesi],
    sources: &crate::facts::Sources,
) -> anyhow::Result<()> {
    let catalog = Policy::Listed(Candidates::Catalog);
    let refused = [
        (
            args.candidates.as_ref().is_some_and(|c| *c != catalog),
            "--candidates other than catalog",
        ),
        (!cremonesi.is_empty(), "roc1@T and roc2@N"),
        (args.compare.is_some(), "--compare"),
        (args.engine != Engine::InProcess, "--engine datafusion"),
        (args.write_candidates.is_some(), "--write-candidates"),
    ];
    if let Some((_, what)) = refused.iter().find(|(refused, _)| *refused) {
        anyhow::bail!(
            "--user-factors evaluates the full catalog streamed: it does not take {what}"
        );
    }
    let (Some(user_factors), Some(item_factors)) = (&args.user_factors, &args.item_factors) else {
        anyhow::bail!("--user-factors needs --item-factors");
    };
    let qrels = read_qrels(&args.qrels)?;
    let options = Candidates::Catalog.options(args.rel_threshold, args.ties, args.zero);
    let factor_args = crate::factors::FactorArgs {
        user_factors,
        item_factors,
        train: args.train.as_ref(),
        qrels_path: &args.qrels,
        memory_budget: usize::try_from(args.memory_budget_mib.saturating_mul(1 << 20))
            .unwrap_or(usize::MAX),
        progress: !args.quiet,
        keep_curves: args.curves.is_some(),
        device: args.device,
        device_memory: usize::try_from(args.device_memory_mib.saturating_mul(1 << 20))
            .unwrap_or(usize::MAX),
    };
    let (mut report, known) = crate::factors::evaluate_factors(
        &factor_args,
        &qrels,
        metrics,
        options,
        args.max_fpr,
        sources,
    )?;
    let intervals = match (report.per_user.take(), args.intervals) {
        (Some(v), true) => intervals(&v, args.resamples, args.seed, &mut report.warnings),
        _ => Vec::new(),
    };
    write_curves(args, &report)?;
    let none = crate::groups::ByGroup::none();
    let popularity = known.popularity.as_ref();
    let shown = Shown {
        policy: &catalog,
        options: &options,
        popularity,
        groups: &none,
        item_groups: &none,
    };
    print(args, &report, shown, 0, &intervals, None)
}

/// A comparison run's path, its scores and the per-metric comparisons.
type Compared = (PathBuf, Run, Vec<Comparison>);

/// Prints the warnings, then the report as JSON or a table.
/// What the report is printed with besides its values: how the candidates were chosen and
/// ranked, and the popularity the popularity metrics read.
#[derive(Clone, Copy)]
struct Shown<'a> {
    policy: &'a Policy,
    options: &'a Options,
    popularity: Option<&'a Popularity>,
    /// `--user-groups`: the per-user means by group.
    groups: &'a crate::groups::ByGroup,
    /// `--item-groups`: the per-user means by item group.
    item_groups: &'a crate::groups::ByGroup,
}

fn print(
    args: &Args,
    report: &Report,
    shown: Shown<'_>,
    n_ignored: usize,
    intervals: &[Intervals],
    comparison: Option<&Compared>,
) -> anyhow::Result<()> {
    let Shown { policy, options, popularity, groups, item_groups } = shown;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        let mut map = Map::new();
        for (key, value) in &report.values {
            map.insert(key.clone(), number_json(*value));
            if let Some(i) = intervals.iter().find(|i| &i.key == key) {
                map.insert(format!("{key}_ci95_t"), interval_json(i.t));
                map.insert(format!("{key}_ci95_bootstrap"), interval_json(i.bootstrap));
            }
        }
        map.insert("candidates".into(), json!(policy.to_string()));
        if matches!(policy, Policy::Sampled { .. }) {
            map.insert("sampling_seed".into(), json!(args.seed));
        }
        map.insert("zero".into(), json!(options.zero.to_string()));
        map.insert("n_users".into(), json!(report.n_users));
        map.insert("n_candidates".into(), json!(report.n_candidates));
        map.insert("n_positives".into(), json!(report.n_positives));
        map.insert("n_users_without_relevant".into(), json!(report.n_users_without_relevant));
        map.insert("n_missing".into(), json!(report.n_missing));
        map.insert("n_ignored".into(), json!(n_ignored));
        if let Some(p) = popularity {
            map.insert("popularity".into(), popularity_json(p));
        }
        if !groups.is_empty() {
            map.insert("groups".into(), groups.json(number_json));
        }
        if !item_groups.is_empty() {
            map.insert("item_groups".into(), item_groups.json(number_json));
        }
        if args.intervals {
            map.insert("bootstrap_seed".into(), json!(args.seed));
            map.insert("bootstrap_resamples".into(), json!(args.resamples));
        }
        if let Some((path, other, rows)) = comparison {
            let mut per_metric = Map::new();
            for c in rows {
                per_metric.insert(
                    c.key.clone(),
                    json!({
                        "mean_run": number_json(c.mean_run),
                        "mean_compare": number_json(c.mean_compare),
                        "n_pairs": c.n_pairs,
                        "t_statistic": number_json(c.t.map(|t| t.0)),
                        "t_p_value": number_json(c.t.map(|t| t.1)),
                        "wilcoxon_statistic": number_json(c.wilcoxon.map(|w| w.0)),
                        "wilcoxon_p_value": number_json(c.wilcoxon.map(|w| w.1)),
                        "wilcoxon_n": c.wilcoxon.map_or(Value::Null, |w| json!(w.2)),
                    }),
                );
            }
            map.insert(
                "compare".into(),
                json!({
                    "run": path.display().to_string(),
                    "n_missing": other.n_missing,
                    "n_ignored": other.n_ignored,
                    "metrics": Value::Object(per_metric),
                }),
            );
        }
        map.insert("warnings".into(), json!(report.warnings));
        println!("{}", serde_json::to_string_pretty(&Value::Object(map))?);
    } else {
        let width = report.values.iter().map(|(k, _)| k.len()).max().unwrap_or(6).max(12);
        for (key, value) in &report.values {
            let mut line = format!("{key:<width$}  {}", text(*value));
            if let Some(i) = intervals.iter().find(|i| &i.key == key) {
                let show = |v: Option<[f64; 2]>| {
                    v.map_or_else(|| "undefined".into(), |[lo, hi]| format!("[{lo:.6}, {hi:.6}]"))
                };
                line.push_str(&format!("  t {}  bootstrap {}", show(i.t), show(i.bootstrap)));
            }
            println!("{line}");
        }
        match policy {
            Policy::Sampled { .. } => {
                println!("{:<width$}  {policy} (seed {})", "policy", args.seed)
            }
            _ => println!("{:<width$}  {policy}", "policy"),
        }
        println!("{:<width$}  {}", "users", report.n_users);
        println!("{:<width$}  {}", "candidates", report.n_candidates);
        println!("{:<width$}  {}", "positives", report.n_positives);
        if let Some(p) = popularity {
            println!("{:<width$}  {}", "head", head_text(p));
        }
        groups.print(width, text);
        item_groups.print(width, text);
        if let Some((path, _, rows)) = comparison {
            println!();
            let run = args.run.first().map_or(Path::new("-"), PathBuf::as_path);
            println!("run {} vs compare {}", run.display(), path.display());
            println!(
                "{:<width$}  {:>10}  {:>10}  {:>12}  {:>12}",
                "metric", "run", "compare", "t p-value", "wilcoxon p"
            );
            for c in rows {
                println!(
                    "{:<width$}  {:>10}  {:>10}  {:>12}  {:>12}",
                    c.key,
                    text(c.mean_run),
                    text(c.mean_compare),
                    text(c.t.map(|t| t.1)),
                    text(c.wilcoxon.map(|w| w.1)),
                );
            }
        }
    }
    Ok(())
}

/// The head and training users behind the popularity metrics, for `--json`.
fn popularity_json(p: &Popularity) -> Value {
    let rule = match p.rule() {
        HeadRule::Share(share) => json!({ "share": share }),
        HeadRule::Items(n) => json!({ "items": n }),
        _ => Value::Null,
    };
    json!({ "head": rule, "n_head_items": p.n_head(), "n_train_users": p.n_users() })
}

/// The head in one line: its rule and how many of the qrels' items it holds.
fn head_text(p: &Popularity) -> String {
    let rule = match p.rule() {
        HeadRule::Share(share) => format!("items holding {share} of the training events"),
        HeadRule::Items(n) => format!("the {n} most popular training items"),
        _ => "?".into(),
    };
    format!("{rule}: {} of the qrels' items ({} training users)", p.n_head(), p.n_users())
}

/// `--ballista URL`: the evaluation on a Ballista cluster.
#[cfg(feature = "ballista")]
fn on_ballista(
    url: &str,
    args: &Args,
    run: &Path,
    metrics: &[Metric],
    options: recs_metrics::Options,
) -> anyhow::Result<recs_datafusion::Evaluated> {
    use recs_datafusion::ballista::evaluate_parquet_remote;
    Ok(evaluate_parquet_remote(url, &args.qrels, run, metrics, options, args.max_fpr)?)
}

#[cfg(all(feature = "datafusion", not(feature = "ballista")))]
fn on_ballista(
    _url: &str,
    _args: &Args,
    _run: &Path,
    _metrics: &[Metric],
    _options: recs_metrics::Options,
) -> anyhow::Result<recs_datafusion::Evaluated> {
    anyhow::bail!(without_feature("--ballista", "Apache Ballista", "ballista"))
}

/// The refusal of an engine this `recs` was built without, naming the cargo feature
/// that adds it.
#[cfg(not(feature = "ballista"))]
fn without_feature(flag: &str, engine: &str, feature: &str) -> String {
    format!(
        "{flag}: this `recs` was built without {engine}; build it with \
         `cargo build --release -p recs-cli --features {feature}` \
         (or `cargo install --path crates/recs-cli --features {feature}`)"
    )
}

/// `recs eval --engine datafusion` in a `recs` built without the `datafusion` feature:
/// refused, saying how to build it with the engine.
#[cfg(not(feature = "datafusion"))]
fn run_on_datafusion(
    args: &Args,
    _run: &Path,
    _metrics: &[Metric],
    _cremonesi: &[Cremonesi],
    _policy: &Policy,
) -> anyhow::Result<()> {
    if args.ballista.is_some() {
        anyhow::bail!(without_feature("--ballista", "Apache Ballista", "ballista"))
    }
    anyhow::bail!(without_feature("--engine datafusion", "Apache DataFusion", "datafusion"))
}

/// `recs eval --engine datafusion`: the evaluation planned and run by DataFusion over the
/// Parquet files, printed as the in-process engine prints it.
#[cfg(feature = "datafusion")]
fn run_on_datafusion(
    args: &Args,
    run: &Path,
    metrics: &[Metric],
    cremonesi: &[Cremonesi],
    policy: &Policy,
) -> anyhow::Result<()> {
    let refused = [
        (*policy != Policy::Listed(Candidates::Qrels), "--candidates other than qrels"),
        (args.write_candidates.is_some(), "--write-candidates"),
        (args.ties != TieBreak::Expected, "--ties other than expected"),
        (!cremonesi.is_empty(), "roc1@T and roc2@N"),
        (args.intervals, "--intervals"),
        (args.compare.is_some(), "--compare"),
        (args.curves.is_some(), "--curves"),
    ];
    if let Some((_, what)) = refused.iter().find(|(refused, _)| *refused) {
        anyhow::bail!("--engine datafusion does not support {what}; use --engine in-process");
    }
    let options = policy.reading().options(args.rel_threshold, args.ties, args.zero);
    let evaluated = match &args.ballista {
        None => recs_datafusion::evaluate_parquet(
            &args.qrels,
            run,
            metrics,
            options,
            args.max_fpr,
            None,
        )?,
        Some(url) => on_ballista(url, args, run, metrics, options)?,
    };
    let none = crate::groups::ByGroup::none();
    let shown =
        Shown { policy, options: &options, popularity: None, groups: &none, item_groups: &none };
    print(args, &evaluated.report, shown, evaluated.n_ignored, &[], None)
}
