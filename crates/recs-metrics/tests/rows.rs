//! A catalog over the rows of a score matrix (`RowCatalog`), streamed by the driver,
//! equals the same scores listed for every candidate of `catalog_candidates` and
//! evaluated in memory: every metric, tie and zero policy, any ids, thread count and
//! memory budget (so any block size and number of workers).

use std::path::Path;

use proptest::prelude::*;
use recs_metrics::io::{
    Candidates, RowCatalog, RowNames, RowScorer, catalog_candidates, qrels_from_rows,
};
use recs_metrics::stream::{CatalogMetrics, evaluate_catalog};
use recs_metrics::{Metric, MetricsError, Report, Scored, TieBreak, ZeroPolicy, evaluate};

const METRICS: &str = "roc,croc,user_auc,p@3,r@5,f1@3,hit@2,ndcg@4,ndcg_exp@4,ap@5,map,mrr,\
                       half_life@3";
const NAMES: RowNames<'static> =
    RowNames { qrels: "qrels", train: "train", users: "users", items: "items" };

/// A `users × items` score matrix over the item rows as given; the catalog's columns are
/// taken through `item_rows`.
struct Dense<'a> {
    scores: &'a [f32],
    n_items: usize,
    item_rows: &'a [u32],
}

impl RowScorer for Dense<'_> {
    type Error = MetricsError;

    fn score_rows(&self, rows: &[u32], out: &mut [f32]) -> Result<(), MetricsError> {
        for (&row, out) in rows.iter().zip(out.chunks_mut(self.n_items)) {
            let scores = &self.scores[row as usize * self.n_items..][..self.n_items];
            for (o, &r) in out.iter_mut().zip(self.item_rows) {
                *o = scores[r as usize];
            }
        }
        Ok(())
    }
}

/// A (user id, item id) training pair.
type Pair = (String, String);
/// A (user id, item id, grade) qrels row.
type Graded = (String, String, f32);

/// A generated case: per (user, item) a score (few values: ties), and a role: trained,
/// graded 1–3, graded 0 (judged, not relevant) or none.
#[derive(Debug, Clone)]
struct Case {
    n_users: usize,
    n_items: usize,
    cells: Vec<(u8, u8)>,
    /// Rotation of the item ids: the item rows are not in id order.
    shift: usize,
}

fn cases() -> impl Strategy<Value = Case> {
    (1usize..7, 2usize..9, 0usize..9).prop_flat_map(|(n_users, n_items, shift)| {
        prop::collection::vec((0u8..5, 0u8..6), n_users * n_items).prop_map(move |mut cells| {
            // Every item in the training pairs or the qrels: `catalog_candidates` knows no
            // other item, while a row catalog has every item row.
            for i in 0..n_items {
                if (0..n_users).all(|u| cells[u * n_items + i].1 == 5) {
                    cells[i].1 = 0;
                }
            }
            Case { n_users, n_items, cells, shift }
        })
    })
}

impl Case {
    fn user_id(&self, row: usize) -> String {
        format!("u{row}")
    }

    fn item_id(&self, row: usize) -> String {
        ((row + self.shift) % self.n_items * 3).to_string()
    }

    fn scores(&self) -> Vec<f32> {
        self.cells.iter().map(|&(s, _)| f32::from(s) / 2.0 - 1.0).collect()
    }

    /// Training pairs and qrels rows as ids.
    fn pairs(&self) -> (Vec<Pair>, Vec<Graded>) {
        let (mut train, mut qrels) = (Vec::new(), Vec::new());
        for u in 0..self.n_users {
            for i in 0..self.n_items {
                let (user, item) = (self.user_id(u), self.item_id(i));
                match self.cells[u * self.n_items + i].1 {
                    0 => train.push((user, item)),
                    g @ 1..=3 => qrels.push((user, item, f32::from(g))),
                    4 => qrels.push((user, item, 0.0)),
                    _ => {}
                }
            }
        }
        (train, qrels)
    }
}

fn listed(case: &Case, options: recs_metrics::Options, metrics: &[Metric]) -> Option<Report> {
    let (train, rows) = case.pairs();
    let qrels =
        qrels_from_rows(rows.iter().map(|(u, i, g)| (u.as_str(), i.as_str(), *g)), Path::new("q"))
            .ok()?;
    let known = train.iter().map(|(u, i)| (u.as_str(), i.as_str()));
    let catalog = catalog_candidates(&qrels, known).unwrap();
    let scores = case.scores();
    let row_of = |id: &str, f: &dyn Fn(usize) -> String, n: usize| (0..n).find(|&r| f(r) == id);
    let mut listed = Vec::new();
    for user in catalog.qrels.judgments.iter() {
        let id = catalog.qrels.users.external(user.user).unwrap();
        let u = row_of(id, &|r| case.user_id(r), case.n_users).unwrap();
        for &item in user.items {
            let id = catalog.qrels.items.external(item).unwrap();
            let i = row_of(id, &|r| case.item_id(r), case.n_items).unwrap();
            listed.push(scores[u * case.n_items + i]);
        }
    }
    let scored = Scored::new(&catalog.qrels.judgments, &listed).unwrap();
    let mut report = evaluate(&scored, metrics, &options, 0.3, false).unwrap();
    report.warnings.extend(catalog.warning("qrels", "train"));
    Some(report)
}

fn streamed(
    case: &Case,
    options: recs_metrics::Options,
    metrics: &[Metric],
    threads: usize,
    memory_budget: usize,
) -> Report {
    let (train, rows) = case.pairs();
    let qrels =
        qrels_from_rows(rows.iter().map(|(u, i, g)| (u.as_str(), i.as_str(), *g)), Path::new("q"))
            .unwrap();
    let known = train.iter().map(|(u, i)| (u.as_str(), i.as_str()));
    let users: Vec<String> = (0..case.n_users).map(|r| case.user_id(r)).collect();
    let items: Vec<String> = (0..case.n_items).map(|r| case.item_id(r)).collect();
    let catalog = RowCatalog::new(&qrels, known, &users, &items, NAMES).unwrap();
    let scores = case.scores();
    let scorer = Dense { scores: &scores, n_items: case.n_items, item_rows: catalog.item_rows() };
    let settings = CatalogMetrics { metrics, options, max_fpr: 0.3, memory_budget };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let source = catalog.source(scorer);
    let mut report = pool.install(|| evaluate_catalog(&source, settings, false, &())).unwrap();
    report.warnings.extend(catalog.warning("qrels", "train"));
    report
}

proptest! {
    #[test]
    fn a_row_catalog_streamed_equals_its_scores_listed(
        case in cases(),
        ties in 0usize..3,
        zero in 0usize..3,
        threshold in 1u8..3,
        threads in 1usize..4,
        budget in prop::sample::select(vec![1usize, 2_000, 1 << 30]),
    ) {
        let ties = [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending][ties];
        let zero = [ZeroPolicy::Exclude, ZeroPolicy::Zero, ZeroPolicy::Ignatov][zero];
        let options = Candidates::Catalog.options(f32::from(threshold), ties, Some(zero));
        let metrics = Metric::parse_list(METRICS).unwrap();
        // No qrels row at all: nothing to judge on either side.
        let Some(memory) = listed(&case, options, &metrics) else { return Ok(()) };
        let stream = streamed(&case, options, &metrics, threads, budget);
        prop_assert_eq!(&memory.per_user, &stream.per_user);
        prop_assert_eq!(
            (memory.n_users, memory.n_candidates, memory.n_positives, memory.n_users_without_relevant),
            (stream.n_users, stream.n_candidates, stream.n_positives, stream.n_users_without_relevant)
        );
        for ((key, a), (_, b)) in memory.values.iter().zip(&stream.values) {
            match (a, b) {
                (Some(a), Some(b)) if key.starts_with("roc_pauc") => prop_assert!((a - b).abs() < 1e-15),
                _ => prop_assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{}", key),
            }
        }
        prop_assert_eq!(&memory.warnings, &stream.warnings);
    }
}
