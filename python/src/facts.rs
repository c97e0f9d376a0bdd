//! What the metrics of the lists' items read besides the lists, from Python's arguments:
//! the items' training popularity, their attributes (diversity) and each user's
//! training history (calibration), numbered by the users and items of an evaluation —
//! a qrels' (`evaluate`) or a streamed catalog's columns (`evaluate_factors`,
//! `evaluate_scorer`).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use recs_core::{IdMap, ItemAttributes};
use recs_metrics::{
    Calibration, DEFAULT_CALIBRATION_SMOOTHING, Diversity, HeadRule, KnownFacts, Metric,
    Popularity, Similarity,
};

use crate::{NativeRun, RunSource, core_error, error, invalid};

/// The options of the facts as the Python half passes them: `(head_share, head_items,
/// attributes as (items, attribute names), similarity, calibration_alpha)`.
pub(crate) type FactOptions =
    (Option<f64>, Option<usize>, Option<(Vec<String>, Vec<String>)>, String, f64);

/// The users and items the facts are numbered by: each an id map and how many of its
/// first ids count.
pub(crate) struct Space<'a> {
    pub(crate) users: (&'a IdMap, usize),
    pub(crate) items: (&'a IdMap, usize),
}

/// Adds what the report's reader needs to know of the facts to `dict`: under
/// `popularity`, the head rule, the head's size and the training users counted.
pub(crate) fn describe(known: &KnownFacts, dict: &Bound<'_, PyDict>) -> PyResult<()> {
    let Some(p) = &known.popularity else { return Ok(()) };
    let py = dict.py();
    let head = PyDict::new(py);
    match p.rule() {
        HeadRule::Share(share) => head.set_item("share", share)?,
        HeadRule::Items(n) => head.set_item("items", n)?,
        _ => {}
    }
    let info = PyDict::new(py);
    info.set_item("head", head)?;
    info.set_item("n_head_items", p.n_head())?;
    info.set_item("n_train_users", p.n_users())?;
    dict.set_item("popularity", info)
}

/// The facts `metrics` read, from the training events and `options`, numbered by
/// `space`; an option that no asked metric reads is an error naming it.
pub(crate) fn known_facts(
    py: Python<'_>,
    metrics: &[Metric],
    train: Option<&NativeRun>,
    options: FactOptions,
    space: Space<'_>,
) -> PyResult<KnownFacts> {
    let (head_share, head_items, attributes, similarity, alpha) = options;
    let head = head_rule(metrics, train, head_share, head_items)?;
    let (items, n_items) = space.items;
    let popularity = match head {
        Some(rule) => {
            let Some(RunSource::Rows(rows)) = train.map(|t| &t.source) else {
                return Err(invalid("train must be held in memory (a dict or a frame)"));
            };
            let pairs = rows.iter().map(|(u, i, _)| (u, i));
            Some(
                py.detach(|| Popularity::of_item_pairs(items, n_items, pairs, rule))
                    .map_err(error)?,
            )
        }
        None => None,
    };
    let similarity: Similarity = similarity.parse().map_err(error)?;
    let attributes = match (metrics.iter().any(Metric::needs_attributes), attributes) {
        (true, Some((items, names))) => Some(Attributes::of(space.items, &items, &names)?),
        (false, Some(_)) => {
            return Err(invalid(
                "attributes are read by ild@N, ild_disc@N and miscal@N; none is asked for",
            ));
        }
        (true, None) => {
            let metric = metrics.iter().find(|m| m.needs_attributes()).expect("asked");
            return Err(invalid(format!(
                "{metric} needs the items' attributes: give attributes (a dict of item to \
                     attributes, or a frame of item and attribute)"
            )));
        }
        (false, None) => None,
    };
    let wants_ild = metrics.iter().any(|m| m.is_diversity());
    let diversity = match &attributes {
        Some(a) if wants_ild => Some(Diversity::new(&a.listed, similarity)),
        _ => None,
    };
    let calibration = match metrics.iter().find(|m| m.needs_history()) {
        Some(metric) => {
            let (Some(a), Some(RunSource::Rows(rows))) = (&attributes, train.map(|t| &t.source))
            else {
                return Err(invalid(format!(
                    "{metric} needs the items' attributes and each user's training items: \
                         give attributes and train (held in memory: a dict or a frame)"
                )));
            };
            let pairs = rows.iter().map(|(u, i, _)| (u, i));
            Some(a.calibration(space.users, pairs, alpha)?)
        }
        None if alpha != DEFAULT_CALIBRATION_SMOOTHING => {
            return Err(invalid(
                "calibration_alpha sets miscal@N's smoothing; miscal@N is not asked for",
            ));
        }
        None => None,
    };
    Ok(KnownFacts { popularity, diversity, calibration })
}

/// An attribute table: of the evaluated items (`listed`, numbered as the evaluation's
/// items) and of every item it names (`all`, numbered by `items`).
struct Attributes {
    listed: ItemAttributes,
    items: IdMap,
    all: ItemAttributes,
}

impl Attributes {
    /// The table of `(items[k], names[k])` pairs, weights 1, for the first `n` items of
    /// `wanted`.
    fn of((wanted, n): (&IdMap, usize), items: &[String], names: &[String]) -> PyResult<Self> {
        if items.len() != names.len() {
            return Err(invalid("attributes: as many items as attributes"));
        }
        let vocabulary =
            IdMap::from_ids_sorted(names.iter().map(String::as_str)).map_err(core_error)?;
        let ids = IdMap::from_ids_sorted(items.iter().map(String::as_str)).map_err(core_error)?;
        let table = |item_of: &dyn Fn(&str) -> Option<u32>, n: usize| {
            let mut pairs: Vec<(u32, u32, f32)> = items
                .iter()
                .zip(names)
                .filter_map(|(item, name)| Some((item_of(item)?, vocabulary.get(name)?, 1.0)))
                .collect();
            pairs.sort_by_key(|&(i, a, _)| (i, a));
            pairs.dedup_by_key(|p| (p.0, p.1));
            ItemAttributes::from_pairs(n, vocabulary.clone(), pairs).map_err(core_error)
        };
        let listed = table(&|item| wanted.get(item).filter(|&i| (i as usize) < n), n)?;
        let all = table(&|item| ids.get(item), ids.len())?;
        Ok(Attributes { listed, items: ids, all })
    }

    /// The calibration of the first `n_users` users of `users` from their training
    /// `(user, item)` pairs, as `recs eval` maps them: other users and items without
    /// attributes are left out of the histories.
    fn calibration<'a>(
        &self,
        (users, n_users): (&IdMap, usize),
        train: impl Iterator<Item = (&'a str, &'a str)>,
        alpha: f64,
    ) -> PyResult<Calibration> {
        let history: Vec<(u32, u32)> = train
            .filter_map(|(user, item)| {
                let user = users.get(user).filter(|&u| (u as usize) < n_users)?;
                Some((user, self.items.get(item)?))
            })
            .collect();
        Calibration::new(&self.listed, &self.all, history, n_users, alpha).map_err(error)
    }
}

/// The head rule of the popularity metrics when one is asked for (`None` otherwise), as
/// `recs eval --head-share` and `--head-items` give it.
fn head_rule(
    metrics: &[Metric],
    train: Option<&NativeRun>,
    share: Option<f64>,
    items: Option<usize>,
) -> PyResult<Option<HeadRule>> {
    let Some(metric) = metrics.iter().find(|m| m.needs_popularity()) else {
        if share.is_some() || items.is_some() {
            return Err(invalid(
                "head_share and head_items set the head of aplt@N and aclt@N; no popularity \
                 metric was asked for",
            ));
        }
        return Ok(None);
    };
    if train.is_none() {
        return Err(invalid(format!(
            "{metric} needs the items' training popularity: give the training events as train"
        )));
    }
    Ok(Some(match (share, items) {
        (Some(_), Some(_)) => return Err(invalid("give head_share or head_items, not both")),
        (Some(share), None) => HeadRule::Share(share),
        (None, Some(n)) => HeadRule::Items(n),
        (None, None) => HeadRule::default(),
    }))
}
