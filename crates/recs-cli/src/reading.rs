//! How `recs eval` and `recs compare` read runs against qrels: the candidate policy, the
//! candidates it defines, and each run's scores with warnings about what was left out.
//! One home for both subcommands, so a run compared by `recs compare` is read, ranked
//! and scored exactly as `recs eval` reads it.

use std::path::Path;

use recs_metrics::io::{
    Candidates, Qrels, Run, RunFormat, catalog_candidates, detect_run_format, read_run,
    read_run_candidates, run_warnings,
};

use crate::candidates::{Built, Policy};

/// The options that say how a run is read against the qrels.
pub(crate) struct Reading<'a> {
    /// The qrels file.
    pub(crate) qrels: &'a Path,
    /// `--train`: the training events (`catalog` and `sampled:N` need them).
    pub(crate) train: Option<&'a Path>,
    /// Whether `--train` is read for the popularity metrics (`arp@N`, ...) too, so any
    /// policy takes it.
    pub(crate) train_for_popularity: bool,
    /// `--candidates`, when given.
    pub(crate) candidates: Option<&'a Policy>,
    /// The run files' format.
    pub(crate) format: RunFormat,
    /// Seed of the negatives `sampled:N` draws.
    pub(crate) seed: u64,
    /// A candidate is relevant when its grade is at least this.
    pub(crate) rel_threshold: f32,
}

impl Reading<'_> {
    /// The candidate policy asked for, or the one the run file's format implies (`run`
    /// for a TREC run, `qrels` otherwise).
    pub(crate) fn policy(&self, run: &Path) -> anyhow::Result<Policy> {
        if let Some(policy) = self.candidates {
            return Ok(policy.clone());
        }
        let format = match self.format {
            RunFormat::Auto => detect_run_format(run)?,
            format => format,
        };
        Ok(Policy::Listed(if format == RunFormat::Trec {
            Candidates::Run
        } else {
            Candidates::Qrels
        }))
    }

    /// The training events of `--train`, which `policy` needs.
    fn training(&self, policy: &Policy) -> anyhow::Result<(&Path, recs_data::Dataset)> {
        let Some(path) = self.train else {
            anyhow::bail!("--candidates {policy} needs --train FILE: the training events");
        };
        Ok((path, crate::format::read_train(path)?))
    }

    /// The candidates of `policy` as qrels that list each of them, or `qrels` itself when
    /// the run decides (`run`) or the qrels list them (`qrels`).
    pub(crate) fn candidate_qrels(
        &self,
        policy: &Policy,
        qrels: Qrels,
        warnings: &mut Vec<String>,
    ) -> anyhow::Result<Qrels> {
        Ok(self.candidate_set(policy, qrels, warnings)?.qrels)
    }

    /// As [`Reading::candidate_qrels`], with what a `sampled:N` draw knows of each user's
    /// full catalog ([`Built::catalog_negatives`]).
    pub(crate) fn candidate_set(
        &self,
        policy: &Policy,
        qrels: Qrels,
        warnings: &mut Vec<String>,
    ) -> anyhow::Result<Built> {
        if self.train.is_some() && !policy.uses_train() && !self.train_for_popularity {
            anyhow::bail!(
                "--train is used by --candidates catalog and sampled:N, not {policy}, and by the \
                 popularity metrics (arp@N, epc@N, gini@N, ...), none of which is asked for"
            );
        }
        let qrels_name = self.qrels.display().to_string();
        let listed = |qrels| Built { qrels, catalog_negatives: None, warnings: Vec::new() };
        let mut built = match policy {
            Policy::Listed(Candidates::Catalog) => {
                return Ok(listed(self.catalog(policy, &qrels, warnings)?));
            }
            Policy::Listed(_) => return Ok(listed(qrels)),
            Policy::Sampled { negatives, by } => {
                let (path, train) = self.training(policy)?;
                let sampling = recs_split::NegativeSampling {
                    negatives: *negatives,
                    by: *by,
                    seed: self.seed,
                };
                let train_name = path.display().to_string();
                crate::candidates::sampled(
                    &qrels,
                    &train,
                    &sampling,
                    self.rel_threshold,
                    &qrels_name,
                    &train_name,
                )?
            }
            Policy::File(path) => {
                crate::candidates::from_file(path, &qrels, self.rel_threshold, &qrels_name)?
            }
        };
        warnings.extend(std::mem::take(&mut built.warnings));
        Ok(built)
    }

    /// The full-catalog candidates of the users of `qrels`, given the training file of
    /// `--train`.
    fn catalog(
        &self,
        policy: &Policy,
        qrels: &Qrels,
        warnings: &mut Vec<String>,
    ) -> anyhow::Result<Qrels> {
        let (path, train) = self.training(policy)?;
        let known = train
            .interactions
            .events()
            .filter_map(|e| Some((train.users.external(e.user)?, train.items.external(e.item)?)));
        let catalog = catalog_candidates(qrels, known)?;
        warnings.extend(
            catalog.warning(&self.qrels.display().to_string(), &path.display().to_string()),
        );
        Ok(catalog.qrels)
    }

    /// The candidates (as qrels, under `--candidates run`) and scores of the run at `path`
    /// under `policy`, `qrels` being what [`Reading::candidate_qrels`] gave, with warnings
    /// about what was left out.
    pub(crate) fn run(
        &self,
        path: &Path,
        qrels: &Qrels,
        policy: &Policy,
        warnings: &mut Vec<String>,
    ) -> anyhow::Result<(Option<Qrels>, Run)> {
        let (candidates, run, n_users_without_run) = self.run_parts(path, qrels, policy)?;
        warnings.extend(self.warnings(path, policy, &run, n_users_without_run));
        Ok((candidates, run))
    }

    /// As [`Reading::run`], without the warnings: the candidates, the scores, and the
    /// number of users of the qrels without a line in the run (under `--candidates run`;
    /// 0 otherwise).
    pub(crate) fn run_parts(
        &self,
        path: &Path,
        qrels: &Qrels,
        policy: &Policy,
    ) -> anyhow::Result<(Option<Qrels>, Run, usize)> {
        Ok(match policy.reading() {
            Candidates::Run => {
                let read = read_run_candidates(path, qrels, self.format)?;
                (Some(read.qrels), read.run, read.n_users_without_run)
            }
            _ => (None, read_run(path, qrels, self.format)?, 0),
        })
    }

    /// The warnings about what reading the run at `path` left out: users without a line
    /// (`n_users_without_run`) and ignored lines.
    pub(crate) fn warnings(
        &self,
        path: &Path,
        policy: &Policy,
        run: &Run,
        n_users_without_run: usize,
    ) -> Vec<String> {
        // A drawn or fixed candidate set is not the qrels file: the warnings name both.
        let qrels_name = match policy {
            Policy::Listed(_) => self.qrels.display().to_string(),
            _ => format!("{} under --candidates {policy}", self.qrels.display()),
        };
        run_warnings(
            policy.reading(),
            run,
            n_users_without_run,
            &qrels_name,
            &path.display().to_string(),
        )
    }
}
