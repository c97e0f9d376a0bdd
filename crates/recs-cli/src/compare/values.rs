//! The per-user values of every run, paired over the same users: what `recs compare`
//! tests. Each run is read and scored as `recs eval` reads and scores it (the same
//! readers, candidate policies and tie-aware per-user metrics); a user a run does not
//! score at all is *missing* from it, and `--missing` says what happens then.

use std::path::PathBuf;

use rayon::prelude::*;
use recs_metrics::io::{Candidates, Qrels, read_qrels};
use recs_metrics::{Metric, Options, Scored, per_user_with};

use crate::candidates::Policy;
use crate::reading::Reading;

/// A run to compare: its name on the command line and its file.
#[derive(Debug, Clone)]
pub(crate) struct NamedRun {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
}

/// What to do with a user of the qrels that a run does not score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum MissingRule {
    /// Refuse: name the run, how many users it misses, and one of them.
    Error,
    /// Score the user 0 on every metric in that run.
    Zero,
}

impl MissingRule {
    /// The rule as `--missing` spells it.
    pub(crate) fn key(self) -> &'static str {
        match self {
            MissingRule::Error => "error",
            MissingRule::Zero => "zero",
        }
    }
}

/// One metric's values, paired: `systems[s][i]` is the value of run `s` for the `i`-th
/// user that has a value in every run, users in the qrels' order.
pub(crate) struct MetricValues {
    pub(crate) metric: Metric,
    pub(crate) systems: Vec<Vec<f64>>,
    /// Users left out: without a value in some run (a user without a relevant candidate
    /// under `--zero exclude`).
    pub(crate) n_left_out: usize,
}

impl MetricValues {
    /// The number of paired users.
    pub(crate) fn n_users(&self) -> usize {
        self.systems.first().map_or(0, Vec::len)
    }

    /// The mean of run `s` over the paired users, summed in user order (as `recs eval`
    /// sums a per-user mean).
    pub(crate) fn mean(&self, s: usize) -> f64 {
        recs_stats::family::mean(&self.systems[s])
    }
}

/// Every run's per-user values, paired over users.
pub(crate) struct Paired {
    /// The users of the qrels (under `--candidates run`, its judged users) every run is
    /// expected to score.
    pub(crate) n_users: usize,
    /// Each metric's paired values, in the order asked for.
    pub(crate) metrics: Vec<MetricValues>,
    /// For each run, the users it does not score (scored 0 under `--missing zero`).
    pub(crate) missing: Vec<usize>,
    /// What reading the files left out.
    pub(crate) warnings: Vec<String>,
}

/// What [`paired_values`] reads and how.
pub(crate) struct Request<'a> {
    pub(crate) reading: &'a Reading<'a>,
    pub(crate) policy: &'a Policy,
    pub(crate) runs: &'a [NamedRun],
    pub(crate) metrics: &'a [Metric],
    pub(crate) options: &'a Options,
    pub(crate) missing: MissingRule,
    /// The training events and attributes of the metrics that read the lists' items.
    pub(crate) sources: &'a crate::facts::Sources,
}

/// Reads the qrels and every run, computes the per-user values of `metrics` and pairs
/// them over the users that have a value in every run.
///
/// # Errors
/// A file that cannot be read or parsed (file and line), a run that misses users under
/// [`MissingRule::Error`], and a metric with fewer than 2 paired users.
pub(crate) fn paired_values(request: &Request<'_>) -> anyhow::Result<Paired> {
    let reading = request.reading;
    let mut warnings = Vec::new();
    let read =
        reading.candidate_qrels(request.policy, read_qrels(reading.qrels)?, &mut warnings)?;
    let users = read.judgments.users();
    // The position of each qrels user index among `users`.
    let mut position = vec![usize::MAX; read.users.len()];
    for (at, &user) in users.iter().enumerate() {
        position[user as usize] = at;
    }
    let n_metrics = request.metrics.len();
    // Runs are read and scored side by side (a worker holds one run at a time), and their
    // results, errors and warnings are taken in the order the runs were given.
    let per_run: Vec<_> = request
        .runs
        .par_iter()
        .map(|run| {
            let mut table = vec![vec![f64::NAN; users.len()]; n_metrics];
            let mut run_warnings = Vec::new();
            run_values(request, run, &read, &position, &mut table, &mut run_warnings)
                .map(|n_missing| (table, n_missing, run_warnings))
        })
        .collect();
    // `values[s][m][position]`, NaN where the run gives no value.
    let mut values = Vec::with_capacity(request.runs.len());
    let mut missing = Vec::with_capacity(request.runs.len());
    for result in per_run {
        let (table, n_missing, run_warnings) = result?;
        values.push(table);
        missing.push(n_missing);
        warnings.extend(run_warnings);
    }
    let mut metrics = Vec::with_capacity(n_metrics);
    for (m, &metric) in request.metrics.iter().enumerate() {
        let kept: Vec<usize> =
            (0..users.len()).filter(|&u| values.iter().all(|run| !run[m][u].is_nan())).collect();
        if kept.len() < 2 {
            anyhow::bail!(
                "{metric}: {} of the {} users of {} have a value in every run; the paired tests \
                 need at least 2",
                kept.len(),
                users.len(),
                reading.qrels.display()
            );
        }
        let systems = values.iter().map(|run| kept.iter().map(|&u| run[m][u]).collect()).collect();
        metrics.push(MetricValues { metric, systems, n_left_out: users.len() - kept.len() });
    }
    Ok(Paired { n_users: users.len(), metrics, missing, warnings })
}

/// Fills `table[m][position]` with the values of `run`; the number of users it misses
/// (each scored 0 under [`MissingRule::Zero`]).
fn run_values(
    request: &Request<'_>,
    run: &NamedRun,
    read: &Qrels,
    position: &[usize],
    table: &mut [Vec<f64>],
    warnings: &mut Vec<String>,
) -> anyhow::Result<usize> {
    // Users without a line are the missing users `--missing` rules on, not a warning.
    let (candidates, scores, _) = request.reading.run_parts(&run.path, read, request.policy)?;
    warnings.extend(request.reading.warnings(&run.path, request.policy, &scores, 0));
    let qrels = candidates.as_ref().unwrap_or(read);
    let scored = Scored::new(&qrels.judgments, &scores.scores)?;
    // A user is scored when one of its candidates has a score (under `--candidates run`,
    // a user without a run line has no candidates here at all).
    let mut scored_users = vec![false; read.judgments.users().len()];
    let mut n_unscored = (0, 0);
    for at in 0..scored.n_users() {
        let (user, user_scores) = scored.user(at);
        let missing = user_scores.iter().filter(|s| s.is_nan()).count();
        if missing < user_scores.len() {
            scored_users[position[user.user as usize]] = true;
            n_unscored.0 += missing;
            n_unscored.1 += user_scores.len();
        }
    }
    if n_unscored.0 > 0 && request.policy.reading() != Candidates::Run {
        warnings.push(format!(
            "{}: {} of the {} candidates of the users it scores have no score and rank lowest",
            run.path.display(),
            n_unscored.0,
            n_unscored.1
        ));
    }
    let known = request.sources.of_qrels(qrels)?;
    let values = per_user_with(&scored, request.metrics, request.options, known.facts())?;
    for (m, column) in (0..request.metrics.len()).map(|m| (m, values.column(m))) {
        for (&user, value) in values.users().iter().zip(column) {
            table[m][position[user as usize]] = value;
        }
    }
    let absent: Vec<usize> = (0..scored_users.len()).filter(|&u| !scored_users[u]).collect();
    if let Some(&first) = absent.first() {
        if request.missing == MissingRule::Error {
            let users = read.judgments.users();
            let id = read.users.external(users[first]).unwrap_or("?");
            let what = match request.policy.reading() {
                Candidates::Run => "has no line for",
                _ => "scores no candidate of",
            };
            anyhow::bail!(
                "run {} ({}) {what} {} of the {} users of {} (for example user {id}); every \
                 run must score every user, or --missing zero scores each such user 0 on every \
                 metric",
                run.name,
                run.path.display(),
                absent.len(),
                users.len(),
                request.reading.qrels.display()
            );
        }
        for column in table.iter_mut() {
            for &u in &absent {
                column[u] = 0.0;
            }
        }
    }
    Ok(absent.len())
}
