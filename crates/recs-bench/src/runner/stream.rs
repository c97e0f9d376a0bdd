//! One model on a full catalog, evaluated without listing its candidates: each judged
//! user's scores for every item are computed, fed to the metrics' partial state and
//! dropped by the one streaming driver (`recs_metrics::stream::evaluate_catalog`). Memory
//! grows with users and test events, not with users × items; the report equals the
//! in-memory one (see `docs/metrics.md`). This module only says where a split's scores
//! come from.

use std::borrow::Cow;

use recs_core::Recommender;
use recs_metrics::stream::{self, CatalogMetrics, CatalogSource};
use recs_metrics::{ItemFacts, Report};
use recs_split::{CatalogJudgments, Split};

use crate::error::{BenchError, Result};
use crate::plan::Plan;
use crate::scoring::{ItemSource, score_catalog_block, score_user};

/// The plan's metrics of `model` on the full-catalog judgments `catalog` of `split`
/// ([`evaluate_catalog`] with the plan's metrics and options), the metrics that read the
/// lists reading `facts` (on the host only: [`Plan::can_stream`] lists the catalog for
/// them on a GPU).
pub(crate) fn evaluate(
    plan: &Plan,
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    facts: ItemFacts<'_>,
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
            evaluate_catalog_with(model, split, catalog, metrics, facts, keep_curves)
        }
        #[cfg(feature = "cuda")]
        device => {
            let emulated = device == crate::plan::EvalDevice::CudaEmulator;
            let mut gpu = recs_cuda::open_device(emulated).map_err(|e| {
                BenchError::Experiment(format!("evaluation.device = \"{device}\": {e}"))
            })?;
            gpu::evaluate_on(&mut *gpu, model, split, catalog, metrics, keep_curves)
        }
        #[cfg(not(feature = "cuda"))]
        device => Err(BenchError::Experiment(format!(
            "evaluation.device = \"{device}\" in a build without GPU support"
        ))),
    }
}

/// Evaluations on a GPU. Each opens the GPU for itself (its kernels are compiled once
/// per process): the splits of a run evaluate in parallel on rayon's threads, and a GPU
/// shared behind a lock would be locked again by a thread that, waiting inside one
/// evaluation, steals another's work.
#[cfg(feature = "cuda")]
mod gpu {
    use recs_core::Recommender;
    use recs_cuda::{Device, DeviceSettings, Error, FactorScores, Scores, evaluate_catalog_on};
    use recs_metrics::Report;
    use recs_metrics::stream::CatalogMetrics;
    use recs_split::{CatalogJudgments, Split};

    use super::SplitScores;
    use crate::error::{BenchError, Result};

    /// The report of `model` on `catalog`, counted on `device`: a factor model whose
    /// judged users are all training users is scored there from its factors, any other
    /// model on the host block by block, the scores copied there.
    pub(super) fn evaluate_on<D: Device + ?Sized>(
        device: &mut D,
        model: &dyn Recommender,
        split: &Split,
        catalog: &CatalogJudgments,
        metrics: CatalogMetrics<'_>,
        keep_curves: bool,
    ) -> Result<Report> {
        let all_items: Vec<u32> = (0..catalog.n_items() as u32).collect();
        let source = SplitScores { model, split, catalog, all_items };
        let scores = match (model.as_factors(), split.history()) {
            (Some(view), None) => Scores::Factors(FactorScores {
                rank: view.rank,
                users: view.users,
                items: view.items,
                user_rows: catalog.users(),
            }),
            _ => Scores::Host,
        };
        let settings = DeviceSettings::default();
        evaluate_catalog_on(device, &source, scores, metrics, settings, keep_curves, &()).map_err(
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
    evaluate_catalog_with(model, split, catalog, metrics, ItemFacts::default(), keep_curves)
}

/// [`evaluate_catalog`] with the metrics that read each user's top-N list (coverage,
/// popularity, novelty, diversity, calibration, exposure), their facts numbered as the
/// split's items and users ([`recs_metrics::stream::evaluate_catalog_with`]).
///
/// # Errors
/// As [`evaluate_catalog`], and a list metric whose facts `facts` lacks.
pub fn evaluate_catalog_with(
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    metrics: CatalogMetrics<'_>,
    facts: ItemFacts<'_>,
    keep_curves: bool,
) -> Result<Report> {
    let all_items: Vec<u32> = (0..catalog.n_items() as u32).collect();
    let source = SplitScores { model, split, catalog, all_items };
    stream::evaluate_catalog_with(&source, metrics, facts, keep_curves, &())
}

/// The placements of sampled against exact ([`recs_sampled::stream::stream_instances`]) of
/// `model` on the full-catalog judgments `catalog` of `split`: each judged user's items
/// graded at least `threshold` placed among its other candidates and among each of
/// `draws`' draws (which address users by their position in `catalog.users()`).
///
/// # Errors
/// A model that fails to score.
pub fn sampled_instances<D: recs_sampled::stream::DrawNegatives + ?Sized>(
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    threshold: f32,
    draws: &D,
    memory_budget: usize,
) -> Result<recs_sampled::stream::StreamedInstances> {
    let all_items: Vec<u32> = (0..catalog.n_items() as u32).collect();
    let source = SplitScores { model, split, catalog, all_items };
    recs_sampled::stream::stream_instances(&source, |g| g >= threshold, draws, memory_budget, &())
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

    /// The GPU path of `recs run` on the kernels compiled for the CPU (`Emulator`): the
    /// report of the CPU path, byte for byte, for a factor model scored from its factors
    /// (weak generalization), the same model with folded-in users scored on the host
    /// (strong generalization), and a model without factors.
    #[cfg(feature = "cuda")]
    #[test]
    fn the_gpu_path_gives_the_cpu_report_on_emulated_kernels() {
        use recs_models_baseline::ItemPopularityParams;
        use recs_split::{Generalization, Given};
        let device = match recs_cuda::Emulator::new() {
            Ok(device) => device,
            Err(e) => {
                eprintln!("notice: {e}; the emulated GPU path is not tested");
                return;
            }
        };
        let mut device = device;
        let data = PowerLaw {
            n_users: 200,
            n_items: 300,
            n_events: 6_000,
            seed: 5,
            ..PowerLaw::default()
        }
        .generate()
        .unwrap();
        let metrics = Metric::parse_list("roc,croc,user_auc,ndcg@10,r@20,map").unwrap();
        let settings = CatalogMetrics {
            metrics: &metrics,
            options: Options::default(),
            max_fpr: 0.3,
            memory_budget: DEFAULT_MEMORY_BUDGET,
        };
        // Every user judged; a fold of users judged (their factor rows are not their
        // positions); a fold of users folded in from their history.
        let users =
            |generalization| Protocol::KFoldUsers { folds: 4, given: Given::N(5), generalization };
        let protocols = [
            (Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 }, false),
            (users(Generalization::Weak), false),
            (users(Generalization::Strong), true),
        ];
        for (protocol, folded_in) in protocols {
            let split = protocol.split(&data.interactions, 5, SplitId::default()).unwrap();
            assert_eq!(split.history().is_some(), folded_in);
            let catalog = split.catalog_judgments(&JudgmentOptions::implicit()).unwrap().unwrap();
            let train = TrainData::new(split.train(), 5);
            let svd = PureSvdParams::new(6).unwrap().fit(&train).unwrap();
            let pop = ItemPopularityParams.fit(&train).unwrap();
            let models: [&dyn Recommender; 2] = [&svd, &pop];
            for model in models {
                let cpu = evaluate_catalog(model, &split, &catalog, settings, true).unwrap();
                let gpu =
                    gpu::evaluate_on(&mut device, model, &split, &catalog, settings, true).unwrap();
                assert_eq!(format!("{gpu:?}"), format!("{cpu:?}"), "{protocol:?}");
            }
        }
        assert_eq!(device.live_buffers(), 0);
    }
}
