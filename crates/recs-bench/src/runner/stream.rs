//! One model on a full catalog, evaluated without listing its candidates: each judged
//! user's scores for every item are computed, fed to the metrics' partial state and
//! dropped by the one streaming driver (`recs_metrics::stream::evaluate_catalog`). Memory
//! grows with users and test events, not with users × items; the report equals the
//! in-memory one (see `docs/metrics.md`). This module only says where a split's scores
//! come from.

use std::borrow::Cow;

use recs_core::Recommender;
use recs_metrics::Report;
use recs_metrics::stream::{self, CatalogMetrics, CatalogSource};
use recs_split::{CatalogJudgments, Split};

use crate::error::{BenchError, Result};
use crate::plan::Plan;
use crate::scoring::{ItemSource, score_catalog_block, score_user};

/// The plan's metrics of `model` on the full-catalog judgments `catalog` of `split`
/// ([`evaluate_catalog`] with the plan's metrics and options).
pub(crate) fn evaluate(
    plan: &Plan,
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    keep_curves: bool,
) -> Result<Report> {
    let metrics = CatalogMetrics {
        metrics: &plan.metrics,
        options: plan.options,
        max_fpr: plan.max_fpr,
        memory_budget: plan.memory_budget,
    };
    match plan.device {
        crate::plan::EvalDevice::Cpu => {
            evaluate_catalog(model, split, catalog, metrics, keep_curves)
        }
        #[cfg(feature = "cuda")]
        crate::plan::EvalDevice::Cuda => {
            let all_items: Vec<u32> = (0..catalog.n_items() as u32).collect();
            let source = SplitScores { model, split, catalog, all_items };
            // A factor model whose judged users are all training users is scored on the
            // GPU from its factors; any other model on the host, counted on the GPU.
            let factors = match (model.as_factors(), split.history()) {
                (Some(view), None) => Some(recs_cuda::FactorScores {
                    rank: view.rank,
                    users: view.users,
                    items: view.items,
                    user_rows: catalog.users(),
                }),
                _ => None,
            };
            gpu::evaluate(&source, factors, metrics, keep_curves)
        }
        #[cfg(not(feature = "cuda"))]
        crate::plan::EvalDevice::Cuda => Err(BenchError::Experiment(
            "evaluation.device = \"cuda\" in a build without GPU support".into(),
        )),
    }
}

/// Evaluations on the first GPU. Each opens the GPU for itself (its kernels are compiled
/// once per process): the splits of a run evaluate in parallel on rayon's threads, and a
/// GPU shared behind a lock would be locked again by a thread that, waiting inside one
/// evaluation, steals another's work.
#[cfg(feature = "cuda")]
mod gpu {
    use recs_cuda::{Cuda, DeviceSettings, Error, Scores, evaluate_catalog_on};
    use recs_metrics::Report;
    use recs_metrics::stream::{CatalogMetrics, CatalogSource};

    use crate::error::{BenchError, Result};

    /// The report of `source` counted on the GPU: scored there from `factors`, or on the
    /// host block by block and copied there.
    pub(super) fn evaluate<S: CatalogSource<Error = BenchError>>(
        source: &S,
        factors: Option<recs_cuda::FactorScores<'_>>,
        metrics: CatalogMetrics<'_>,
        keep_curves: bool,
    ) -> Result<Report> {
        let mut gpu = Cuda::open(0).map_err(|e| BenchError::Experiment(e.to_string()))?;
        let settings = DeviceSettings::default();
        let scores = factors.map_or(Scores::Host, Scores::Factors);
        evaluate_catalog_on(&mut gpu, source, scores, metrics, settings, keep_curves, &()).map_err(
            |e| match e {
                Error::Source(e) => e,
                Error::Metrics(e) => BenchError::Metrics(e),
                Error::Device(e) => BenchError::Experiment(e.to_string()),
            },
        )
    }
}

/// The report of `model` on the full-catalog judgments `catalog` of `split`
/// ([`Split::catalog_judgments`]), equal to the in-memory evaluation of the same
/// candidates listed, in memory that does not grow with users × items: a first pass
/// scores the graded items (for the pooled ROC), the main pass every item of blocks of
/// judged users ([`Recommender::score_catalog`]), counted and dropped. Users of the
/// split's history part are folded in, as in memory. With `keep_curves`, the report
/// holds the ROC and CROC curves.
///
/// # Errors
/// Invalid metric options, or a model that fails to score.
pub fn evaluate_catalog(
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    metrics: CatalogMetrics<'_>,
    keep_curves: bool,
) -> Result<Report> {
    let all_items: Vec<u32> = (0..catalog.n_items() as u32).collect();
    let source = SplitScores { model, split, catalog, all_items };
    stream::evaluate_catalog(&source, metrics, keep_curves, &())
}

/// A model's scores for the judged users of a split.
struct SplitScores<'a> {
    model: &'a dyn Recommender,
    split: &'a Split,
    catalog: &'a CatalogJudgments,
    all_items: Vec<u32>,
}

impl CatalogSource for SplitScores<'_> {
    type Error = BenchError;

    fn n_items(&self) -> usize {
        self.all_items.len()
    }

    fn n_users(&self) -> usize {
        self.catalog.users().len()
    }

    fn n_graded(&self) -> usize {
        self.catalog.n_graded()
    }

    fn user(&self, position: usize) -> u32 {
        self.catalog.users()[position]
    }

    fn graded(&self, position: usize) -> (&[u32], &[f32]) {
        self.catalog.graded(position)
    }

    fn excluded(&self, position: usize) -> Cow<'_, [u32]> {
        Cow::Owned(self.split.known_items(self.user(position)))
    }

    fn score_graded(&self, positions: &[usize], out: &mut Vec<f32>) -> Result<()> {
        for &p in positions {
            let items = self.catalog.graded(p).0;
            let start = out.len();
            out.resize(start + items.len(), 0.0);
            let (model, history) = (self.model, self.split.history());
            let user = self.user(p);
            score_user(model, user, items, &mut out[start..], ItemSource::Trained, history)?;
        }
        Ok(())
    }

    fn score_block(&self, positions: &[usize], out: &mut [f32]) -> Result<()> {
        let users: Vec<u32> = positions.iter().map(|&p| self.user(p)).collect();
        score_catalog_block(self.model, &users, &self.all_items, out, self.split.history())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{Fit, TrainData};
    use recs_data::PowerLaw;
    use recs_metrics::stream::DEFAULT_MEMORY_BUDGET;
    use recs_metrics::{Metric, Options};
    use recs_models_latent::PureSvdParams;
    use recs_split::{Amount, JudgmentOptions, Protocol, SplitId};

    #[test]
    fn reports_are_identical_for_any_thread_count_and_memory_budget() {
        let data = PowerLaw {
            n_users: 300,
            n_items: 400,
            n_events: 12_000,
            seed: 3,
            ..PowerLaw::default()
        }
        .generate()
        .unwrap();
        let protocol = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
        let split = protocol.split(&data.interactions, 3, SplitId::default()).unwrap();
        let catalog = split.catalog_judgments(&JudgmentOptions::implicit()).unwrap().unwrap();
        let model = PureSvdParams::new(8).unwrap().fit(&TrainData::new(split.train(), 3)).unwrap();
        let metrics = Metric::parse_list("roc,croc,user_auc,ndcg@10,r@20,map").unwrap();
        let run = |threads: usize, budget: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let metrics = CatalogMetrics {
                metrics: &metrics,
                options: Options::default(),
                max_fpr: 0.3,
                memory_budget: budget,
            };
            let report =
                pool.install(|| evaluate_catalog(&model, &split, &catalog, metrics, true)).unwrap();
            format!("{report:?}")
        };
        let reference = run(1, DEFAULT_MEMORY_BUDGET);
        // One user per block, one worker; a few blocks and workers; the default.
        for (threads, budget) in [(4, 1), (4, 400_000), (7, 2_000_000), (16, DEFAULT_MEMORY_BUDGET)]
        {
            assert_eq!(run(threads, budget), reference, "{threads} threads, budget {budget}");
        }
    }
}
