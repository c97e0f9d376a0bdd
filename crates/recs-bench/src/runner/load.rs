//! Loading a plan's dataset and item attributes.

use recs_core::ItemAttributes;
use recs_data::{AttributeFilter, Dataset, Resolver};

use crate::error::{BenchError, Result};
use crate::plan::{AttributeSource, DatasetSource, Plan, Synthetic};

/// What identifies a loaded dataset within a session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key {
    source: DatasetSource,
    binary: bool,
    attributes: Option<AttributeSource>,
}

impl Key {
    pub(crate) fn of(plan: &Plan) -> Key {
        Key { source: plan.dataset.clone(), binary: plan.binary, attributes: plan.attributes }
    }
}

/// The dataset with its item attributes.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) key: Key,
    pub(crate) dataset: Dataset,
    pub(crate) attributes: Option<ItemAttributes>,
    /// The attributes in words, for the report.
    pub(crate) attribute_note: Option<String>,
}

/// Loads the plan's dataset (through `parsed`, the parsed-dataset cache, when given) and
/// its attributes.
pub(crate) fn load(
    plan: &Plan,
    resolver: &Resolver,
    parsed: Option<&recs_data::DatasetCache>,
) -> Result<Loaded> {
    let mut dataset = match (&plan.dataset, parsed) {
        (DatasetSource::Named(name, case_ids), parsed) => {
            let options = recs_data::MsWebOptions { case_ids: *case_ids, ..Default::default() };
            match parsed {
                Some(cache) => recs_data::load_named_cached(name, resolver, &options, cache)?.0,
                None => recs_data::load_named_with(name, resolver, &options)?,
            }
        }
        (DatasetSource::Files { train, test, format }, _) => {
            let train = recs_data::load_delimited(train, format)?;
            match test {
                None => train,
                Some(test) => {
                    let test = recs_data::load_delimited(test, format)?;
                    recs_data::join_predefined(train, test)?
                }
            }
        }
        (DatasetSource::Synthetic(Synthetic::IgnatovBlocks), _) => recs_data::ignatov_blocks()?,
        (DatasetSource::Synthetic(Synthetic::IgnatovBlocksOverlapping), _) => {
            recs_data::ignatov_blocks_overlapping()?
        }
    };
    if plan.binary {
        binarize(&mut dataset)?;
    }
    let (attributes, attribute_note) = match plan.attributes {
        None => (None, None),
        Some(AttributeSource::Genres) => {
            let attributes = dataset.item_attributes.clone().ok_or_else(|| {
                BenchError::Experiment(format!(
                    "dataset.attributes = \"genres\": {} has no item attributes",
                    dataset.name
                ))
            })?;
            let note = format!("the dataset's {} genres", attributes.n_attributes());
            (Some(attributes), Some(note))
        }
        Some(AttributeSource::Cast) => {
            let attributes =
                recs_data::load_cast(resolver, &dataset, &AttributeFilter::SCHEIN2005_CAST)?;
            let note = format!(
                "the top-10 billed actors of each movie, actors in at least two movies ({} actors)",
                attributes.n_attributes()
            );
            (Some(attributes), Some(note))
        }
    };
    Ok(Loaded { key: Key::of(plan), dataset, attributes, attribute_note })
}

/// Every event (and every event of the shipped test part) becomes a 1; timestamps stay.
fn binarize(dataset: &mut Dataset) -> Result<()> {
    let ones = |data: &recs_core::Interactions| {
        let events = data.events().map(|e| recs_core::Event { value: 1.0, ..e });
        recs_core::Interactions::from_events(
            data.n_users(),
            data.n_items(),
            events,
            recs_core::DuplicatePolicy::Error,
        )
    };
    dataset.interactions = ones(&dataset.interactions)?;
    if let Some(test) = &dataset.test {
        dataset.test = Some(ones(test)?);
    }
    dataset.feedback = recs_data::Feedback::Implicit;
    Ok(())
}

impl Loaded {
    /// The judgments as a qrels file (`user<TAB>item<TAB>grade`, external ids).
    pub(crate) fn qrels_lines(&self, judgments: &recs_core::Judgments) -> Result<String> {
        let (users, items) = (&self.dataset.users, &self.dataset.items);
        text("scores/qrels.tsv", |out| recs_metrics::io::write_qrels(out, judgments, users, items))
    }

    /// The training events of a split as `user<TAB>item` lines under that header
    /// (external ids), the `--train` of `recs eval` for the popularity metrics.
    pub(crate) fn train_lines(&self, train: &recs_core::Interactions) -> Result<String> {
        let (users, items) = (&self.dataset.users, &self.dataset.items);
        text("scores/train.tsv", |out| {
            use std::io::Write;
            writeln!(out, "user\titem")?;
            for event in train.events() {
                let user = users.external(event.user).unwrap_or("?");
                let item = items.external(event.item).unwrap_or("?");
                writeln!(out, "{user}\t{item}")?;
            }
            Ok(())
        })
    }

    /// The item attributes as an attribute file (`item<TAB>rank<TAB>attribute` under that
    /// header, external ids, ranks from 1 in attribute order), the `--attributes` of `recs
    /// eval` for intra-list diversity; `None` without attributes.
    pub(crate) fn attribute_lines(&self) -> Result<Option<String>> {
        let Some(attributes) = &self.attributes else { return Ok(None) };
        let items = &self.dataset.items;
        let names = attributes.vocabulary();
        text("scores/attributes.tsv", |out| {
            use std::io::Write;
            writeln!(out, "item\trank\tattribute")?;
            for item in 0..attributes.n_items() as u32 {
                let id = items.external(item).unwrap_or("?");
                for (rank, &a) in attributes.item_attributes(item).iter().enumerate() {
                    writeln!(out, "{id}\t{}\t{}", rank + 1, names.external(a).unwrap_or("?"))?;
                }
            }
            Ok(())
        })
        .map(Some)
    }

    /// Scores as a run file (`user<TAB>item<TAB>score`, each score in its shortest
    /// round-trip form, so `recs eval` reads back the same bits).
    pub(crate) fn run_lines(
        &self,
        judgments: &recs_core::Judgments,
        scores: &[f32],
    ) -> Result<String> {
        let (users, items) = (&self.dataset.users, &self.dataset.items);
        text("scores/<model>.tsv", |out| {
            recs_metrics::io::write_run(out, judgments, scores, users, items)
        })
    }
}

/// What `write` writes, as text; errors name `file`.
fn text(file: &str, write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> Result<String> {
    let mut out = Vec::new();
    write(&mut out).map_err(|e| BenchError::io(file, e))?;
    String::from_utf8(out).map_err(|e| BenchError::io(file, std::io::Error::other(e)))
}
