//! `recs eval --sampled-vs-exact N`: sampled metrics against exact ones, side by side, on
//! the user's own data and runs.
//!
//! Every relevant item of a user of the qrels is an instance (Krichene & Rendle 2020, one
//! relevant item per instance). Its exact rank is among itself and the user's non-relevant
//! full-catalog candidates (the `catalog` policy's); its sampled rank among itself and
//! the negatives each seed draws (the `sampled:N` policy's draw, through the same code);
//! the user's other relevant items are in neither list. For each run and metric the
//! report gives the exact mean, and the mean of every estimator (uncorrected or
//! corrected, `recs_sampled::Estimator`) for each seed; across runs, how each estimator
//! orders them. Definitions: `docs/metrics.md`, "Sampled metrics".

mod report;

use std::path::{Path, PathBuf};

use anyhow::Context;
use recs_bench::ModelRows;
use recs_core::Judgments;
use recs_metrics::io::{Candidates, Qrels, RunFormat, read_qrels, read_run, run_warnings};
use recs_metrics::stream::{CatalogSource, TerminalProgress};
use recs_metrics::{Scored, score_key};
use recs_sampled::stream::{SeededDraws, stream_instances};
use recs_sampled::versus::{EstimatorTable, UserLists, run_instances, run_values};
use recs_sampled::{Correction, RankMetric};
use recs_split::{NegativeSampling, SampleBy, SampledUser};

use crate::candidates::{Catalog, graded_known_warning, user_id};
use crate::factors::FactorFiles;
use report::{RunReport, Setup};

pub(crate) use recs_sampled::versus::{DEFAULT_CORRECTIONS, DEFAULT_METRICS};

/// What `--sampled-vs-exact` was asked to compare.
pub(crate) struct Request<'a> {
    pub(crate) qrels: &'a Path,
    pub(crate) train: &'a Path,
    pub(crate) runs: &'a [PathBuf],
    pub(crate) format: RunFormat,
    /// `N[:uniform|:popularity]`.
    pub(crate) draw: &'a str,
    pub(crate) seed: u64,
    pub(crate) n_seeds: usize,
    pub(crate) metrics: &'a str,
    pub(crate) corrections: &'a str,
    pub(crate) threshold: f32,
    pub(crate) json: bool,
    /// Instead of `runs`: a factor model's files, scored on the full catalog in a stream.
    pub(crate) factors: Option<FactorFiles<'a>>,
    /// With `factors`: bytes of score blocks held at once.
    pub(crate) memory_budget: usize,
    /// With `factors`: draw a progress bar (on a terminal).
    pub(crate) progress: bool,
}

/// `N`, `N:uniform` or `N:popularity`.
fn parse_draw(text: &str) -> anyhow::Result<(usize, SampleBy)> {
    let (count, by) = text.split_once(':').unwrap_or((text, "uniform"));
    let negatives = count.parse::<usize>().ok().filter(|&n| n > 0).with_context(|| {
        format!("--sampled-vs-exact {text:?}: expected N, N:uniform or N:popularity with N >= 1")
    })?;
    let by = by.parse::<SampleBy>().map_err(|_| {
        anyhow::anyhow!(
            "--sampled-vs-exact {text:?}: negatives are drawn by `uniform` or `popularity`, \
             not {by:?}"
        )
    })?;
    Ok((negatives, by))
}

/// The comma-separated metrics, each a function of one item's rank; repeats dropped.
fn parse_metrics(text: &str) -> anyhow::Result<Vec<RankMetric>> {
    let mut out: Vec<RankMetric> = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let metric = name.to_ascii_lowercase().parse::<RankMetric>().map_err(|_| {
            anyhow::anyhow!(
                "--sampled-vs-exact compares metrics of one relevant item's rank; {name:?} is \
                 not one: use auc, r@k (also recall@k, hit@k), p@k, ap (also mrr), ndcg or \
                 ndcg@k"
            )
        })?;
        if !out.contains(&metric) {
            out.push(metric);
        }
    }
    anyhow::ensure!(!out.is_empty(), "--metrics names no metric");
    Ok(out)
}

/// The comma-separated corrections; repeats dropped.
fn parse_corrections(text: &str) -> anyhow::Result<Vec<Correction>> {
    let mut out: Vec<Correction> = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let correction =
            name.parse::<Correction>().map_err(|e| anyhow::anyhow!("--corrections: {e}"))?;
        if !out.contains(&correction) {
            out.push(correction);
        }
    }
    anyhow::ensure!(!out.is_empty(), "--corrections names no correction");
    Ok(out)
}

/// The users' full-catalog candidates as qrels listing every one (what the runs are read
/// against), each user's lists, and warnings.
struct Lists {
    full: Qrels,
    users: Vec<UserLists>,
    warnings: Vec<String>,
}

/// Each user's full-catalog candidates and, for each sampling, its draw.
fn user_lists(
    request: &Request<'_>,
    qrels: &Qrels,
    samplings: &[NegativeSampling],
) -> anyhow::Result<Lists> {
    let train = crate::format::read_train(request.train)?;
    let catalog = Catalog::new(qrels, &train)?;
    let mut builder = Judgments::builder(qrels.users.len(), catalog.items().len());
    let (mut items, mut grades) = (Vec::new(), Vec::new());
    let (mut n_graded_known, mut n_short) = (0, 0);
    let mut users = Vec::with_capacity(qrels.judgments.iter().len());
    for row in qrels.judgments.iter() {
        let id = user_id(qrels, row.user)?;
        n_graded_known += catalog.user_row(qrels, row.user, id, &mut items, &mut grades);
        let draws: Vec<_> = samplings
            .iter()
            .map(|sampling| {
                let draw = catalog.draw(sampling, id, &items, &grades, request.threshold);
                n_short += usize::from(draw.n_negatives < sampling.negatives);
                draw
            })
            .collect();
        let draws: Vec<(&[u32], &[f32])> =
            draws.iter().map(|d| (&d.items[..], &d.grades[..])).collect();
        users.push(UserLists::from_rows(&items, &grades, |g| g >= request.threshold, &draws));
        builder.push_user(row.user, &items, &grades)?;
    }
    let mut warnings: Vec<String> = samplings[0].short_draws_warning(n_short).into_iter().collect();
    if n_graded_known > 0 {
        let (q, t) = (request.qrels.display().to_string(), request.train.display().to_string());
        warnings.push(graded_known_warning(n_graded_known, &q, &t));
    }
    let full = Qrels {
        users: qrels.users.clone(),
        items: catalog.items().clone(),
        judgments: builder.build()?,
    };
    Ok(Lists { full, users, warnings })
}

pub(crate) fn run(request: &Request<'_>) -> anyhow::Result<()> {
    let (negatives, by) = parse_draw(request.draw)?;
    let metrics = parse_metrics(request.metrics)?;
    let corrections = parse_corrections(request.corrections)?;
    anyhow::ensure!(request.n_seeds >= 1, "--seeds must be at least 1");
    // Seed s of K draws with `--seed + s`, so `--seeds 1` draws what `--candidates
    // sampled:N --seed S` draws.
    let seeds: Vec<u64> =
        (0..request.n_seeds as u64).map(|s| request.seed.wrapping_add(s)).collect();
    let samplings: Vec<NegativeSampling> =
        seeds.iter().map(|&seed| NegativeSampling { negatives, by, seed }).collect();
    let qrels = read_qrels(request.qrels)?;
    if let Some(files) = request.factors {
        return factor_run(request, files, &qrels, &samplings, Chosen { metrics, corrections });
    }
    let Lists { full, users, mut warnings } = user_lists(request, &qrels, &samplings)?;
    warnings.extend(UserLists::left_out_warning(&users));
    let sizes = users
        .iter()
        .filter(|u| u.has_instances())
        .flat_map(|u| u.drawn.iter().map(|d| (u.negatives.len() as u64 + 1, d.len() as u64)))
        .collect();
    let n_users = users.iter().filter(|u| u.has_instances()).count();
    anyhow::ensure!(
        n_users > 0,
        "{}: no relevant item (grade at least {}) of a user with negatives to rank it against",
        request.qrels.display(),
        request.threshold
    );
    let table = EstimatorTable::build(sizes, &metrics, &corrections)?;
    let qrels_name = format!("{} under --candidates catalog", request.qrels.display());
    let mut reports = Vec::with_capacity(request.runs.len());
    let mut n_instances = 0;
    for path in request.runs {
        let run = read_run(path, &full, request.format)?;
        let name = path.display().to_string();
        warnings.extend(run_warnings(Candidates::Qrels, &run, 0, &qrels_name, &name));
        let scored = Scored::new(&full.judgments, &run.scores)?;
        let instances = run_instances(&users, |position, keys| {
            keys.extend(scored.user(position).1.iter().map(|&s| score_key(s)));
        });
        n_instances = instances.len();
        let values = run_values(&instances, &table, &metrics, corrections.len(), seeds.len());
        reports.push(RunReport {
            name,
            n_missing: run.n_missing,
            n_ignored: run.n_ignored,
            values,
        });
    }
    let setup = Setup {
        negatives,
        by,
        seeds,
        metrics,
        corrections,
        n_users,
        n_instances,
        n_sizes: table.n_sizes(),
    };
    print_report(request, &setup, &reports, &warnings)
}

/// The metrics and estimators compared.
struct Chosen {
    metrics: Vec<RankMetric>,
    corrections: Vec<Correction>,
}

/// The warnings on standard error, and the report on standard output.
fn print_report(
    request: &Request<'_>,
    setup: &Setup,
    reports: &[RunReport],
    warnings: &[String],
) -> anyhow::Result<()> {
    for w in warnings {
        eprintln!("warning: {w}");
    }
    if request.json {
        println!("{}", serde_json::to_string_pretty(&report::to_json(setup, reports, warnings))?);
    } else {
        print!("{}", report::to_table(setup, reports));
    }
    Ok(())
}

/// `--sampled-vs-exact` on a factor model: its scores streamed over the full catalog of
/// its item rows (every row but the user's training items), each relevant item placed
/// among the user's negatives and each seed's draw without listing a score; the numbers
/// are those of the same scores listed as a run.
fn factor_run(
    request: &Request<'_>,
    files: FactorFiles<'_>,
    qrels: &Qrels,
    samplings: &[NegativeSampling],
    chosen: Chosen,
) -> anyhow::Result<()> {
    let train = crate::format::read_train(request.train)?;
    let (catalog, model) = files.load(qrels, &train)?;
    let source = catalog.source(ModelRows(&model));
    let mut popularity = vec![0u32; catalog.n_items()];
    for (item, count) in train.interactions.item_counts().into_iter().enumerate() {
        let column = train.items.external(item as u32).and_then(|id| catalog.items().get(id));
        if let Some(column) = column {
            popularity[column as usize] = count;
        }
    }
    let ids = (0..source.n_users())
        .map(|p| user_id(qrels, source.user(p)))
        .collect::<anyhow::Result<Vec<&str>>>()?;
    // Each user's draw follows its id's stream, as `--candidates sampled:N` draws it.
    let draws = SeededDraws {
        samplings: samplings.to_vec(),
        user: Box::new(move |position: usize| SampledUser::Id(ids[position])),
        popularity,
        threshold: request.threshold,
    };
    let bar = TerminalProgress::new(request.progress);
    let threshold = request.threshold;
    let streamed =
        stream_instances(&source, |g| g >= threshold, &draws, request.memory_budget, &bar);
    bar.finish();
    let streamed = streamed?;
    let mut warnings: Vec<String> =
        samplings[0].short_draws_warning(streamed.n_short).into_iter().collect();
    let (qrels_name, train_name) =
        (request.qrels.display().to_string(), request.train.display().to_string());
    warnings.extend(catalog.warning(&qrels_name, &train_name));
    warnings.extend(UserLists::left_out_warning_of(streamed.n_left_out));
    anyhow::ensure!(
        streamed.n_users > 0,
        "{}: no relevant item (grade at least {}) of a user with negatives to rank it against",
        request.qrels.display(),
        request.threshold
    );
    let Chosen { metrics, corrections } = chosen;
    let table = EstimatorTable::build(streamed.sizes, &metrics, &corrections)?;
    let seeds: Vec<u64> = samplings.iter().map(|s| s.seed).collect();
    let values = run_values(&streamed.instances, &table, &metrics, corrections.len(), seeds.len());
    let name = format!("{} · {}", files.users.display(), files.items.display());
    let reports = [RunReport { name, n_missing: 0, n_ignored: 0, values }];
    let setup = Setup {
        negatives: samplings[0].negatives,
        by: samplings[0].by,
        seeds,
        metrics,
        corrections,
        n_users: streamed.n_users,
        n_instances: streamed.instances.len(),
        n_sizes: table.n_sizes(),
    };
    print_report(request, &setup, &reports, &warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_metrics_and_corrections_parse_or_say_what_is_allowed() {
        assert_eq!(parse_draw("100").unwrap(), (100, SampleBy::Uniform));
        assert_eq!(parse_draw("5:popularity").unwrap(), (5, SampleBy::Popularity));
        assert!(parse_draw("0").unwrap_err().to_string().contains("N >= 1"));
        assert!(parse_draw("5:pop").unwrap_err().to_string().contains("`uniform` or `popularity`"));
        let metrics = parse_metrics("auc, hit@10,ndcg@10,mrr,ap").unwrap();
        let names: Vec<String> = metrics.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["auc", "r@10", "ndcg@10", "ap"]);
        for bad in ["map", "roc", "f1@10", "ndcg_exp@10", "user_auc"] {
            let e = parse_metrics(&format!("auc,{bad}")).unwrap_err().to_string();
            assert!(e.contains(&format!("{bad:?} is not one")) && e.contains("ndcg@k"), "{e}");
        }
        let all = parse_corrections(DEFAULT_CORRECTIONS).unwrap();
        assert_eq!(all.len(), 5);
        let e = parse_corrections("sampled,bv:2").unwrap_err().to_string();
        assert!(e.contains("bv:2") && e.contains("rank-estimate"), "{e}");
    }
}
