//! One split of a plan: draw it and judge it (with the validation split inside its
//! training part); `assess` runs the models on it.

use recs_core::{Interactions, Judgments};
use recs_split::{CatalogJudgments, Split, SplitId};

use super::Progress;
use super::load::Loaded;
use crate::error::{BenchError, Result};
use crate::plan::{ModelPlan, Params, Plan, ProtocolChoice};

/// The purposes a split's seeds are derived for: adding a purpose never shifts another.
#[derive(Debug, Clone, Copy)]
#[repr(u64)]
pub(crate) enum Purpose {
    /// Model initialisation (every fit of the split).
    Model = 1,
    /// The validation split drawn inside the training part.
    Validation = 2,
    /// Sampled negative candidates of the test part.
    Negatives = 3,
    /// Sampled negative candidates of the validation part.
    ValidationNegatives = 4,
    /// The randomised statistics of the run's paired comparisons (`[comparison]`): one
    /// seed for the whole family, split 0/0's.
    Comparison = 5,
    /// The draws of negatives that sampled metrics are compared on
    /// (`evaluation.sampled_vs_exact`): the first seed's; seed `s` adds `s`.
    SampledVsExact = 6,
}

/// A seed for one purpose of one split, mixed so that nearby inputs give unrelated
/// streams.
pub(crate) fn derive_seed(seed: u64, id: SplitId, purpose: Purpose) -> u64 {
    recs_core::mix64(
        seed ^ (u64::from(id.repetition) << 40)
            ^ (u64::from(id.fold) << 20)
            ^ (purpose as u64).wrapping_mul(recs_core::GOLDEN_GAMMA),
    )
}

/// The judgments of `split` under the plan's test mode; with `judgments.items = "all"`,
/// over every item rather than only those the protocol designates (the split itself keeps
/// its designation, for measures). A full catalog is kept without its negatives when the
/// plan allows ([`Plan::can_stream`]). With sampled candidates, each judged user's
/// relevant items and negatives drawn with `seed` (`judgments.sampled`).
pub(crate) fn judge(plan: &Plan, split: &Split, seed: u64) -> Result<Candidates> {
    if let Some(sampled) = plan.sampled {
        let sampling =
            recs_split::NegativeSampling { negatives: sampled.negatives, by: sampled.by, seed };
        return Ok(Candidates::Listed(split.sampled_judgments(&plan.judging, &sampling)?));
    }
    if plan.judge_all_items && split.candidate_items().is_some() {
        let every_item = (0..split.n_items() as u32).collect();
        let judgments = split.clone().with_candidate_items(every_item)?.judgments(&plan.judging)?;
        return Ok(Candidates::Listed(judgments));
    }
    if plan.can_stream()
        && let Some(catalog) = split.catalog_judgments(&plan.judging)?
    {
        return Ok(Candidates::Catalog(catalog));
    }
    Ok(Candidates::Listed(split.judgments(&plan.judging)?))
}

/// The candidates of a judged split.
#[derive(Debug)]
pub(crate) enum Candidates {
    /// Every candidate listed: any candidate set, every score kept.
    Listed(Judgments),
    /// Every item a user does not know, kept as its graded items: evaluated streaming.
    Catalog(CatalogJudgments),
}

impl Candidates {
    pub(crate) fn n_judged_users(&self) -> usize {
        match self {
            Candidates::Listed(j) => j.n_judged_users(),
            Candidates::Catalog(c) => c.users().len(),
        }
    }

    pub(crate) fn n_candidates(&self) -> usize {
        match self {
            Candidates::Listed(j) => j.n_candidates(),
            Candidates::Catalog(c) => c.n_candidates() as usize,
        }
    }

    /// Each judged user as (candidates, positives at `threshold`).
    pub(crate) fn shapes(&self, threshold: f32) -> Vec<(usize, usize)> {
        match self {
            Candidates::Listed(j) => {
                j.iter().map(|u| (u.items.len(), u.n_relevant(threshold))).collect()
            }
            Candidates::Catalog(c) => (0..c.users().len())
                .map(|p| {
                    let relevant = c.graded(p).1.iter().filter(|&&g| g >= threshold).count();
                    (c.n_candidates_of(p), relevant)
                })
                .collect(),
        }
    }

    /// The listed judgments, when the candidates are listed.
    pub(crate) fn listed(&self) -> Option<&Judgments> {
        match self {
            Candidates::Listed(j) => Some(j),
            Candidates::Catalog(_) => None,
        }
    }
}

/// The splits to run, in report order.
pub(crate) fn split_ids(plan: &Plan, quick: bool) -> Vec<SplitId> {
    // A predefined split has one fold; its repetitions draw the validation partition,
    // the models' random choices and (for new users) the visible events afresh.
    let folds = match &plan.protocol {
        ProtocolChoice::Predefined | ProtocolChoice::PredefinedNewUsers(_) => 1,
        ProtocolChoice::Generated(p) => p.n_folds() as u32,
    };
    let repetitions = if quick { 1 } else { plan.repetitions };
    let mut ids: Vec<SplitId> =
        (0..repetitions).flat_map(|r| (0..folds).map(move |f| SplitId::new(r, f))).collect();
    if quick {
        ids.truncate(1);
    }
    ids
}

/// The parameter combinations a model tries.
pub(crate) fn combinations(model: &ModelPlan, quick: bool) -> &[Params] {
    if quick { &model.quick_combinations } else { &model.combinations }
}

/// Everything a split needs from its run.
pub(crate) struct Context<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) data: &'a Loaded,
    pub(crate) quick: bool,
    pub(crate) progress: &'a dyn Progress,
}

/// A drawn split with its judgments.
pub(crate) struct Judged {
    pub(crate) split: Split,
    pub(crate) candidates: Candidates,
    /// Test items are kept out of training.
    pub(crate) cold: bool,
}

impl Context<'_> {
    fn draw(&self, data: &Interactions, id: SplitId) -> Result<Split> {
        match &self.plan.protocol {
            ProtocolChoice::Predefined => {
                Ok(Split::predefined(data.clone(), self.shipped_test()?)?)
            }
            ProtocolChoice::PredefinedNewUsers(given) => Ok(Split::predefined_new_users(
                data.clone(),
                self.shipped_test()?,
                *given,
                self.plan.seed,
                id.repetition,
            )?),
            ProtocolChoice::Generated(p) => Ok(p.split(data, self.plan.seed, id)?),
        }
    }

    /// The dataset's own test part.
    fn shipped_test(&self) -> Result<Interactions> {
        self.data.dataset.test.clone().ok_or_else(|| {
            BenchError::Experiment(format!(
                "protocol `predefined`: {} has no test part (give dataset.test_file, \
                 or use a registered dataset that ships one, such as msweb)",
                self.data.dataset.name
            ))
        })
    }

    /// Split `id` drawn and judged.
    pub(crate) fn judged(&self, id: SplitId) -> Result<Judged> {
        let plan = self.plan;
        let split = self.draw(&self.data.dataset.interactions, id)?;
        let candidates = judge(plan, &split, derive_seed(plan.seed, id, Purpose::Negatives))?;
        if candidates.n_judged_users() == 0 {
            return Err(BenchError::Experiment(format!(
                "split {}/{}: no user is judged (mode `{}`)",
                id.repetition, id.fold, plan.mode
            )));
        }
        Ok(Judged { split, candidates, cold: plan.protocol.is_cold_start() })
    }

    /// The validation split drawn inside the training part, when a model has a grid.
    pub(crate) fn validation(&self, split: &Split, id: SplitId) -> Result<Option<Judged>> {
        let plan = self.plan;
        let needs = plan.models.iter().any(|m| combinations(m, self.quick).len() > 1);
        let Some(selection) = plan.selection.as_ref().filter(|_| needs) else {
            return Ok(None);
        };
        let seed = derive_seed(plan.seed, id, Purpose::Validation);
        let validation = split.validation(&selection.protocol, seed, SplitId::new(0, 0))?;
        let negatives = derive_seed(plan.seed, id, Purpose::ValidationNegatives);
        let candidates = judge(plan, &validation, negatives)?;
        let cold = matches!(selection.protocol, recs_split::Protocol::ColdStartItems { .. });
        Ok(Some(Judged { split: validation, candidates, cold }))
    }
}
