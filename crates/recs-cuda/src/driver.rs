//! A streamed full-catalog evaluation whose counting runs on a [`Device`]: the host
//! prepares each block of users (their graded keys, excluded and relevant items), the
//! device scores and counts every candidate, and the host finishes each user from its
//! counts with the CPU path's code.

use std::borrow::Cow;

use rayon::prelude::*;
use recs_metrics::Report;
use recs_metrics::stream::{
    CatalogMetrics, CatalogSource, CountedUser, Evaluator, GradedKeys, KeyCounts, KeyOrder,
    NegativeCounts, PositiveScores, StreamProgress, catalog_block_users, check_lists,
};

use crate::device::{Arg, Device, Kernel, Typed};
use crate::error::Error;
use crate::scores::{DeviceBlock, FactorScores, Scores};

/// The default GPU memory budget of an evaluation: 2 GiB.
pub const DEFAULT_DEVICE_BUDGET: usize = 2 << 30;

/// Users one thread scores together (`USERS_PER_THREAD` in `kernels.cu`).
const USERS_PER_THREAD: u32 = 8;
/// Items one thread visits (`ITEMS_PER_THREAD` in `kernels.cu`).
const ITEMS_PER_THREAD: u32 = 16;
/// Threads per block of the counting kernels.
const THREADS: u32 = 128;
/// Threads per block of `mark_items`.
const MARK_THREADS: u32 = 128;
/// Threads per block of `gather_scores`.
const GATHER_THREADS: u32 = 256;
/// Users of one block at most: enough to fill a large GPU many times over.
const MAX_BLOCK_USERS: usize = 1 << 14;
/// Users per task of the host's first pass (the pooled ROC's positives).
const POSITIVE_BLOCK: usize = 256;
/// Users per task when the host turns a block's counts into per-user values.
const FINISH_USERS: usize = 256;

/// How much of the device an evaluation may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceSettings {
    /// Bytes of device memory held at once ([`DEFAULT_DEVICE_BUDGET`] by default): the
    /// item factors, the pooled ROC's thresholds and counts, and one block of users.
    pub memory_budget: usize,
    /// Users per block, when set (at most what the budget allows); the report does not
    /// depend on it.
    pub block_users: Option<usize>,
}

impl Default for DeviceSettings {
    fn default() -> Self {
        DeviceSettings { memory_budget: DEFAULT_DEVICE_BUDGET, block_users: None }
    }
}

/// The report of every judged user of `source` with the counting done on `device`: the
/// report [`recs_metrics::stream::evaluate_catalog`] gives on the CPU, byte for byte.
/// Scores come from `scores` ([`Scores`]). With scores on the host or from factors, the
/// graded items' scores (the pooled ROC's first pass, and each user's keys) come from
/// the source's [`CatalogSource::score_graded`] on the host; with scores on the device,
/// they are read from the device's blocks (scored twice when the pooled ROC is asked
/// for, and refused when the two differ).
///
/// # Errors
/// A device failure ([`Error::Device`]), invalid metrics, users or factors
/// ([`Error::Metrics`]), or a scoring error ([`Error::Source`]).
pub fn evaluate_catalog_on<D, S>(
    device: &mut D,
    source: &S,
    scores: Scores<'_, S::Error>,
    metrics: CatalogMetrics<'_>,
    settings: DeviceSettings,
    keep_curves: bool,
    progress: &dyn StreamProgress,
) -> Result<Report, Error<S::Error>>
where
    D: Device + ?Sized,
    S: CatalogSource + ?Sized,
{
    let mut evaluator = Evaluator::new(metrics.metrics, metrics.options, metrics.max_fpr)
        .map_err(Error::Metrics)?;
    let (n_items, n_users) = (source.n_items(), source.n_users());
    if n_items > u32::MAX as usize / 2 {
        return Err(Error::Metrics(invalid(
            "catalog",
            format!("{n_items} items"),
            "fewer than 2^31 items",
        )));
    }
    match &scores {
        Scores::Factors(f) => check_factors(f, n_items, n_users).map_err(Error::Metrics)?,
        Scores::Device(d) => check_layout(d.layout(), n_items).map_err(Error::Metrics)?,
        Scores::Host => {}
    }
    let positions: Vec<usize> = (0..n_users).collect();
    let threshold = metrics.options.threshold;
    let host_budget = metrics.memory_budget;
    let mut run = Run::new(device, &evaluator, source, scores, threshold, settings, host_budget)?;
    let mut first_pass = Vec::new();
    if evaluator.needs_positives() {
        progress.begin("positives", n_users);
        let positives = match run.scores {
            Scores::Device(_) => {
                let mut positives = PositiveScores::new();
                for chunk in positions.chunks(run.block_users) {
                    let (graded, _) = run.device_graded(chunk, None)?;
                    let mut start = 0;
                    for &p in chunk {
                        let grades = source.graded(p).1;
                        positives.push_user(
                            grades,
                            &graded[start..start + grades.len()],
                            threshold,
                        );
                        start += grades.len();
                    }
                    first_pass.extend(graded);
                    progress.advance(chunk.len());
                }
                positives
            }
            _ => {
                collect_positives(source, &positions, threshold, progress).map_err(Error::Source)?
            }
        };
        evaluator.set_positives(positives);
        run.set_pooled(&evaluator)?;
    }
    progress.begin("catalog", n_users);
    let mut part = evaluator.part();
    let mut offset = 0;
    for chunk in positions.chunks(run.block_users) {
        let n_graded: usize = chunk.iter().map(|&p| source.graded(p).0.len()).sum();
        let first = (!first_pass.is_empty()).then(|| &first_pass[offset..offset + n_graded]);
        offset += n_graded;
        run.block(&evaluator, chunk, &mut part, first)?;
        progress.advance(chunk.len());
    }
    if let Some(counts) = run.pooled_counts()? {
        part.add_negatives(counts).map_err(Error::Metrics)?;
    }
    drop(run);
    evaluator.finish(part, keep_curves).map_err(Error::Metrics)
}

fn invalid(
    name: &'static str,
    value: String,
    expected: &'static str,
) -> recs_metrics::MetricsError {
    recs_metrics::MetricsError::InvalidArgument { name, value, expected }
}

/// Refuses factors whose shape does not fit the source.
fn check_factors(f: &FactorScores<'_>, n_items: usize, n_users: usize) -> recs_metrics::Result<()> {
    let rank = f.rank;
    if rank == 0 || f.items.len() != n_items * rank || !f.users.len().is_multiple_of(rank) {
        return Err(invalid(
            "factors",
            format!(
                "rank {rank}, {} item and {} user values for {n_items} items",
                f.items.len(),
                f.users.len()
            ),
            "rank > 0, items × rank item values and whole user rows",
        ));
    }
    let rows = f.users.len() / rank;
    if f.user_rows.len() != n_users || f.user_rows.iter().any(|&r| r as usize >= rows) {
        return Err(invalid(
            "factors",
            format!("{} user rows for {n_users} users, of {rows} factor rows", f.user_rows.len()),
            "a factor row for each judged user",
        ));
    }
    Ok(())
}

/// Refuses a device layout that does not place every item in a row.
fn check_layout((row_len, columns): (usize, &[u32]), n_items: usize) -> recs_metrics::Result<()> {
    if columns.len() != n_items || columns.iter().any(|&c| c as usize >= row_len) {
        return Err(invalid(
            "device scores",
            format!("{} columns in rows of {row_len} for {n_items} items", columns.len()),
            "a place in a row for every item",
        ));
    }
    Ok(())
}

/// The positives of every user (the pooled ROC's first pass), scored on the host.
fn collect_positives<S: CatalogSource + ?Sized>(
    source: &S,
    positions: &[usize],
    threshold: f32,
    progress: &dyn StreamProgress,
) -> Result<PositiveScores, S::Error> {
    let parts: Vec<PositiveScores> = positions
        .par_chunks(POSITIVE_BLOCK)
        .map(|chunk| {
            let mut scores = Vec::new();
            source.score_graded(chunk, &mut scores)?;
            let n_graded: usize = chunk.iter().map(|&p| source.graded(p).1.len()).sum();
            if scores.len() != n_graded {
                return Err(invalid(
                    "graded scores",
                    format!("{} scores for {n_graded} graded items", scores.len()),
                    "one score per graded item",
                )
                .into());
            }
            let mut positives = PositiveScores::new();
            let mut start = 0;
            for &p in chunk {
                let grades = source.graded(p).1;
                positives.push_user(grades, &scores[start..start + grades.len()], threshold);
                start += grades.len();
            }
            progress.advance(chunk.len());
            Ok(positives)
        })
        .collect::<Result<_, S::Error>>()?;
    let mut positives = PositiveScores::new();
    for part in parts {
        positives.merge(part);
    }
    Ok(positives)
}

/// What stays on the device for the whole evaluation.
struct Run<'a, D: Device + ?Sized, S: CatalogSource + ?Sized> {
    device: &'a mut D,
    source: &'a S,
    scores: Scores<'a, S::Error>,
    /// Item factors by dimension (`rank × n_items`), with factor scores.
    items_t: Option<Typed<f32>>,
    /// Where each item's score sits in a row of given scores (identity for the host's).
    columns: Option<Typed<u32>>,
    /// The length of a row of given scores.
    row_len: usize,
    /// The pooled ROC's thresholds, their index and counts, when it is asked for.
    pooled: Option<Pooled>,
    orders: Vec<KeyOrder>,
    threshold: f32,
    words: usize,
    block_users: usize,
}

struct Pooled {
    keys: Typed<u32>,
    prefix: Typed<u32>,
    shift: u32,
    below: Typed<u64>,
    equal: Typed<u64>,
}

/// What the device counted for one block: per key order, the cells between and on the
/// users' keys; per user, the candidates scored `NaN`.
struct BlockCounts {
    orders: Vec<(Vec<u64>, Vec<u64>)>,
    missing: Vec<u64>,
}

/// One block's host-side lists, in the layouts of `kernels.cu`.
#[derive(Default)]
struct BlockLists {
    excluded_offsets: Vec<u32>,
    excluded: Vec<u32>,
    relevant_offsets: Vec<u32>,
    relevant: Vec<u32>,
    /// Per user: its graded keys in each order, moved into its counts once read.
    keys: Vec<Vec<GradedKeys>>,
    /// Per order: the offsets of the users' keys in `flat_keys`.
    key_offsets: Vec<Vec<u32>>,
    flat_keys: Vec<Vec<u64>>,
    /// Candidates of each user.
    candidates: Vec<u64>,
}

impl<'a, D: Device + ?Sized, S: CatalogSource + ?Sized> Run<'a, D, S> {
    fn new(
        device: &'a mut D,
        evaluator: &Evaluator,
        source: &'a S,
        scores: Scores<'a, S::Error>,
        threshold: f32,
        settings: DeviceSettings,
        host_budget: usize,
    ) -> Result<Self, Error<S::Error>> {
        let n_items = source.n_items();
        let words = n_items.div_ceil(32).max(1);
        let orders = evaluator.key_orders().to_vec();
        // What stays for the whole run: the factors, and the pooled ROC's thresholds,
        // index and counts (at most one threshold per graded pair, an index of at most
        // 2^24 + 1 cells).
        let mut fixed = 0usize;
        if let Scores::Factors(f) = &scores {
            fixed += 4 * f.rank * n_items;
        }
        if evaluator.needs_positives() {
            fixed += 20 * (source.n_graded() + 1) + 4 * ((1 << 24) + 1);
        }
        // Per user of a block: two bitmaps, its factors or scores, its counts and keys
        // (on average; the graded pairs of a block vary).
        let scores_per_user = match &scores {
            Scores::Factors(f) => 4 * f.rank,
            Scores::Host => 4 * n_items,
            Scores::Device(d) => 4 * d.layout().0,
        };
        let graded_per_user = source.n_graded().div_ceil(source.n_users().max(1));
        let per_user =
            8 * words + scores_per_user + 32 + orders.len() * (8 + 24 * (graded_per_user + 1));
        if fixed + per_user > settings.memory_budget {
            return Err(Error::Metrics(invalid(
                "device memory budget",
                format!("{} bytes", settings.memory_budget),
                "room for the item factors, the pooled ROC's thresholds and one user",
            )));
        }
        let fit = (settings.memory_budget - fixed) / per_user;
        let mut block_users =
            settings.block_users.unwrap_or(MAX_BLOCK_USERS).min(fit).clamp(1, MAX_BLOCK_USERS);
        if let Scores::Host = scores {
            // The host holds a block's scores before they are copied: within its budget.
            block_users = block_users.min((host_budget / (4 * n_items.max(1))).max(1));
        }
        let mut run = Run {
            device,
            source,
            scores,
            items_t: None,
            columns: None,
            row_len: n_items,
            pooled: None,
            orders,
            threshold,
            words,
            block_users,
        };
        match &run.scores {
            Scores::Factors(f) => {
                let mut by_dimension = vec![0.0f32; f.rank * n_items];
                for (item, row) in f.items.chunks_exact(f.rank).enumerate() {
                    for (k, &x) in row.iter().enumerate() {
                        by_dimension[k * n_items + item] = x;
                    }
                }
                run.items_t = Some(Typed::from_slice(run.device, &by_dimension)?);
            }
            Scores::Host => {
                let identity: Vec<u32> = (0..n_items as u32).collect();
                run.columns = Some(Typed::from_slice(run.device, &identity)?);
            }
            Scores::Device(d) => {
                let (row_len, columns) = d.layout();
                run.row_len = row_len;
                run.columns = Some(Typed::from_slice(run.device, columns)?);
            }
        }
        Ok(run)
    }

    /// The pooled ROC's thresholds, index and counts on the device, once the positives
    /// are set.
    fn set_pooled(&mut self, evaluator: &Evaluator) -> Result<(), Error<S::Error>> {
        if let Some(t) = evaluator.thresholds() {
            let (prefix, shift) = t.index();
            let d = t.keys().len();
            let device = &mut *self.device;
            self.pooled = Some(Pooled {
                keys: Typed::from_slice(device, t.keys())?,
                prefix: Typed::from_slice(device, prefix)?,
                shift,
                below: Typed::zeros(device, d + 1)?,
                equal: Typed::zeros(device, d)?,
            });
        }
        Ok(())
    }

    /// Scores the users at `chunk` on the device (given scores) and reads back their
    /// graded items' scores, user after user; refused when they differ from `first`
    /// (the same users' scores in the first pass). The block stays alive in the result.
    fn device_graded(
        &mut self,
        chunk: &[usize],
        first: Option<&[f32]>,
    ) -> Result<(Vec<f32>, DeviceBlock), Error<S::Error>> {
        let Scores::Device(scorer) = self.scores else {
            unreachable!("called with scores on the device only")
        };
        let block = scorer.score_on_device(chunk).map_err(Error::Source)?;
        self.device.synchronize()?;
        let (mut rows, mut items) = (Vec::new(), Vec::new());
        for (u, &p) in chunk.iter().enumerate() {
            let graded = self.source.graded(p).0;
            rows.extend(std::iter::repeat_n(u as u32, graded.len()));
            items.extend_from_slice(graded);
        }
        let n_pairs = items.len();
        let device = &mut *self.device;
        let columns = self.columns.as_ref().expect("the layout is on the device");
        let rows_d = Typed::from_slice(device, &rows)?;
        let items_d = Typed::from_slice(device, &items)?;
        let out = Typed::<f32>::zeros(device, n_pairs)?;
        let args = [
            Arg::U32(to_u32(n_pairs)?),
            rows_d.arg(),
            items_d.arg(),
            Arg::Ptr(block.addr),
            Arg::U32(to_u32(self.row_len)?),
            columns.arg(),
            out.arg(),
        ];
        let grid = [to_u32(n_pairs)?.div_ceil(GATHER_THREADS).max(1), 1, 1];
        let launched = device.launch(Kernel::GatherScores, grid, [GATHER_THREADS, 1, 1], &args);
        let read = launched.and_then(|()| out.read(device, n_pairs));
        if read.is_err() {
            // The kernel may still read the block, which its owner frees once dropped.
            let _ = device.synchronize();
        }
        for buffer in [rows_d.buffer, items_d.buffer, out.buffer] {
            device.free(buffer);
        }
        let scores = read?;
        if let Some(first) = first
            && let Some(k) = first.iter().zip(&scores).position(|(a, b)| a.to_bits() != b.to_bits())
        {
            let (u, item) = (rows[k] as usize, items[k]);
            return Err(Error::Metrics(invalid(
                "device scores",
                format!(
                    "user {}, item {item}: {} in the first pass and {} in the second",
                    self.source.user(chunk[u]),
                    first[k],
                    scores[k]
                ),
                "the same scores each time (the pooled ROC takes two passes)",
            )));
        }
        Ok((scores, block))
    }

    /// The graded items' scores of the users at `chunk`, user after user, scored on the
    /// host on every core.
    fn host_graded(&self, chunk: &[usize]) -> Result<Vec<f32>, Error<S::Error>> {
        let source = self.source;
        let scores = chunk
            .par_chunks(POSITIVE_BLOCK)
            .map(|part| {
                let mut scores = Vec::new();
                source.score_graded(part, &mut scores).map(|()| scores)
            })
            .collect::<Result<Vec<Vec<f32>>, S::Error>>()
            .map_err(Error::Source)?;
        Ok(scores.concat())
    }

    /// The host's lists of the users at `chunk`, checked, with their graded items'
    /// scores.
    fn lists(&self, chunk: &[usize], graded_scores: &[f32]) -> Result<BlockLists, Error<S::Error>> {
        let source = self.source;
        let n_items = source.n_items();
        let n_graded: usize = chunk.iter().map(|&p| source.graded(p).0.len()).sum();
        if graded_scores.len() != n_graded {
            return Err(Error::Metrics(invalid(
                "graded scores",
                format!("{} scores for {n_graded} graded items", graded_scores.len()),
                "one score per graded item",
            )));
        }
        let mut starts = Vec::with_capacity(chunk.len());
        let mut start = 0;
        for &p in chunk {
            starts.push(start);
            start += source.graded(p).0.len();
        }
        // Each user's lists and keys on every core, then laid end to end.
        let orders = &self.orders;
        let users: Vec<(Cow<'_, [u32]>, Vec<GradedKeys>)> = chunk
            .par_iter()
            .zip(&starts)
            .map(|(&p, &start)| {
                let excluded = source.excluded(p);
                let (graded, grades) = source.graded(p);
                check_lists(source.user(p), n_items, &excluded, graded, grades)?;
                let scores = &graded_scores[start..start + graded.len()];
                let keys = orders
                    .iter()
                    .map(|&order| GradedKeys::new(order, graded, grades, scores))
                    .collect();
                Ok((excluded, keys))
            })
            .collect::<recs_metrics::Result<_>>()
            .map_err(Error::Metrics)?;
        let mut lists = BlockLists {
            excluded_offsets: vec![0],
            relevant_offsets: vec![0],
            keys: Vec::with_capacity(chunk.len()),
            key_offsets: vec![vec![0]; self.orders.len()],
            flat_keys: vec![Vec::new(); self.orders.len()],
            ..BlockLists::default()
        };
        for (&p, (excluded, keys)) in chunk.iter().zip(users) {
            let (graded, grades) = source.graded(p);
            lists.excluded.extend_from_slice(&excluded);
            lists.excluded_offsets.push(to_u32(lists.excluded.len())?);
            lists.relevant.extend(
                graded.iter().zip(grades).filter(|&(_, &g)| g >= self.threshold).map(|(&i, _)| i),
            );
            lists.relevant_offsets.push(to_u32(lists.relevant.len())?);
            for (o, keys) in keys.iter().enumerate() {
                lists.flat_keys[o].extend_from_slice(keys.keys());
                lists.key_offsets[o].push(to_u32(lists.flat_keys[o].len())?);
            }
            lists.keys.push(keys);
            lists.candidates.push((n_items - excluded.len()) as u64);
        }
        Ok(lists)
    }

    /// Evaluates the users at `chunk` into `part`.
    fn block(
        &mut self,
        evaluator: &Evaluator,
        chunk: &[usize],
        part: &mut recs_metrics::stream::Part,
        first: Option<&[f32]>,
    ) -> Result<(), Error<S::Error>> {
        // With scores on the device, the block is scored first and its graded scores
        // read from it; it stays alive until the counts are read.
        let (graded_scores, on_device) = match self.scores {
            Scores::Device(_) => {
                let (graded, block) = self.device_graded(chunk, first)?;
                (graded, Some(block))
            }
            _ => (self.host_graded(chunk)?, None),
        };
        let mut lists = self.lists(chunk, &graded_scores)?;
        let n = chunk.len();
        let n_items = self.source.n_items();
        let words = self.words;
        let mut held: Vec<crate::device::Buffer> = Vec::new();
        let result = (|| -> Result<BlockCounts, Error<S::Error>> {
            let device = &mut *self.device;
            let mut keep = |t: crate::device::Buffer| held.push(t);
            // Excluded and relevant items as bitmaps.
            let excluded = Typed::<u32>::zeros(device, n * words)?;
            keep(excluded.buffer);
            let relevant = Typed::<u32>::zeros(device, n * words)?;
            keep(relevant.buffer);
            for (offsets, items, bitmap) in [
                (&lists.excluded_offsets, &lists.excluded, &excluded),
                (&lists.relevant_offsets, &lists.relevant, &relevant),
            ] {
                let offsets_d = Typed::from_slice(device, offsets)?;
                keep(offsets_d.buffer);
                let items_d = Typed::from_slice(device, items)?;
                keep(items_d.buffer);
                let args = [
                    Arg::U32(n as u32),
                    offsets_d.arg(),
                    items_d.arg(),
                    Arg::U32(words as u32),
                    bitmap.arg(),
                ];
                device.launch(Kernel::MarkItems, [n as u32, 1, 1], [MARK_THREADS, 1, 1], &args)?;
            }
            // Keys and counts per order; a second order's arguments repeat the first's
            // when there is none (the kernel reads only `n_orders`).
            let mut order_args = Vec::new();
            let mut counts = Vec::new();
            for (o, order) in self.orders.iter().enumerate() {
                let keys = Typed::from_slice(device, &lists.flat_keys[o])?;
                keep(keys.buffer);
                let offsets = Typed::from_slice(device, &lists.key_offsets[o])?;
                keep(offsets.buffer);
                let k = lists.flat_keys[o].len();
                // The kernel indexes between-cells by key offset + user, in 32 bits.
                to_u32(k + n)?;
                let between = Typed::<u64>::zeros(device, k + n)?;
                keep(between.buffer);
                let on = Typed::<u64>::zeros(device, k)?;
                keep(on.buffer);
                order_args.push([
                    keys.arg(),
                    offsets.arg(),
                    between.arg(),
                    on.arg(),
                    Arg::U32(u32::from(order.descending_items)),
                    Arg::U32(order.shift),
                ]);
                counts.push((between, on, k));
            }
            let second = order_args.get(1).copied().unwrap_or(order_args[0]);
            let missing = Typed::<u64>::zeros(device, n)?;
            keep(missing.buffer);
            let mut args = vec![
                Arg::U32(n_items as u32),
                Arg::U32(n as u32),
                excluded.arg(),
                relevant.arg(),
                Arg::U32(words as u32),
                Arg::U32(self.orders.len() as u32),
            ];
            args.extend(order_args[0]);
            args.extend(second);
            args.push(missing.arg());
            match &self.pooled {
                Some(p) => args.extend([
                    Arg::U32(1),
                    p.keys.arg(),
                    p.prefix.arg(),
                    Arg::U32(p.shift),
                    p.below.arg(),
                    p.equal.arg(),
                ]),
                None => args.extend([
                    Arg::U32(0),
                    missing.arg(),
                    missing.arg(),
                    Arg::U32(0),
                    missing.arg(),
                    missing.arg(),
                ]),
            }
            let grid = [
                (n_items as u32).div_ceil(THREADS * ITEMS_PER_THREAD).max(1),
                (n as u32).div_ceil(USERS_PER_THREAD),
                1,
            ];
            let (row_len, columns) =
                (Arg::U32(to_u32(self.row_len)?), self.columns.map(|c| c.arg()));
            match (&self.scores, &self.items_t, &on_device) {
                (Scores::Factors(f), Some(items_t), _) => {
                    let mut rows = Vec::with_capacity(n * f.rank);
                    for &p in chunk {
                        let r = f.user_rows[p] as usize;
                        rows.extend_from_slice(&f.users[r * f.rank..(r + 1) * f.rank]);
                    }
                    let users = Typed::from_slice(device, &rows)?;
                    keep(users.buffer);
                    let mut all = vec![Arg::U32(f.rank as u32), users.arg(), items_t.arg()];
                    all.extend(args);
                    device.launch(Kernel::CountFactors, grid, [THREADS, 1, 1], &all)?;
                }
                (Scores::Device(_), _, Some(block)) => {
                    let columns = columns.expect("the layout is on the device");
                    let mut all = vec![Arg::Ptr(block.addr), row_len, columns];
                    all.extend(args);
                    device.launch(Kernel::CountScores, grid, [THREADS, 1, 1], &all)?;
                }
                _ => {
                    // Scored on every core, in blocks of the CPU path's size.
                    let mut scores = vec![0.0f32; n * n_items];
                    let sub = catalog_block_users(n_items);
                    let source = self.source;
                    scores
                        .par_chunks_mut(sub * n_items.max(1))
                        .zip(chunk.par_chunks(sub))
                        .try_for_each(|(out, positions)| source.score_block(positions, out))
                        .map_err(Error::Source)?;
                    let scores_d = Typed::from_slice(device, &scores)?;
                    keep(scores_d.buffer);
                    let columns = columns.expect("the identity layout is on the device");
                    let mut all = vec![scores_d.arg(), row_len, columns];
                    all.extend(args);
                    device.launch(Kernel::CountScores, grid, [THREADS, 1, 1], &all)?;
                }
            }
            let mut orders = Vec::new();
            for (between, on, k) in &counts {
                orders.push((between.read(device, k + n)?, on.read(device, *k)?));
            }
            Ok(BlockCounts { orders, missing: missing.read(device, n)? })
        })();
        if result.is_err() && on_device.is_some() {
            // A kernel may still read the block, which its owner frees once dropped.
            let _ = self.device.synchronize();
        }
        for buffer in held {
            self.device.free(buffer);
        }
        drop(on_device);
        let BlockCounts { orders: read, missing } = result?;
        // Users finished on every core into parts of their own (without pooled ROC
        // counts: those come once, at the end), merged exactly.
        let source = self.source;
        let positions: Vec<(usize, usize)> = chunk.iter().copied().enumerate().collect();
        let mut keys = std::mem::take(&mut lists.keys);
        let parts: Vec<recs_metrics::stream::Part> = positions
            .par_chunks(FINISH_USERS)
            .zip(keys.par_chunks_mut(FINISH_USERS))
            .map(|(users, keys)| {
                let mut part = evaluator.per_user_part();
                let mut counted: Vec<(GradedKeys, KeyCounts)> = Vec::new();
                for (&(u, p), keys) in users.iter().zip(keys) {
                    counted.clear();
                    for (o, (keys, (between, on))) in keys.drain(..).zip(&read).enumerate() {
                        let (lo, hi) = (
                            lists.key_offsets[o][u] as usize,
                            lists.key_offsets[o][u + 1] as usize,
                        );
                        let counts = KeyCounts {
                            between: between[lo + u..=hi + u].to_vec(),
                            on: on[lo..hi].to_vec(),
                        };
                        counted.push((keys, counts));
                    }
                    let user = CountedUser {
                        user: source.user(p),
                        n: lists.candidates[u],
                        missing: missing[u],
                        grades: source.graded(p).1,
                        counted: &counted,
                    };
                    evaluator.push_counted(&mut part, user)?;
                }
                Ok(part)
            })
            .collect::<recs_metrics::Result<_>>()
            .map_err(Error::Metrics)?;
        for other in parts {
            part.merge(other);
        }
        Ok(())
    }

    /// The pooled ROC's counts, when it is asked for.
    fn pooled_counts(&mut self) -> Result<Option<NegativeCounts>, Error<S::Error>> {
        match &self.pooled {
            Some(p) => {
                let below = p.below.read(self.device, p.below.len)?;
                let equal = p.equal.read(self.device, p.equal.len)?;
                Ok(Some(NegativeCounts::from_cells(below, equal).map_err(Error::Metrics)?))
            }
            None => Ok(None),
        }
    }
}

/// Gives back what stayed on the device, on success or error: a device shared by several
/// evaluations (`recs run`'s) holds nothing of a finished one.
impl<D: Device + ?Sized, S: CatalogSource + ?Sized> Drop for Run<'_, D, S> {
    fn drop(&mut self) {
        if let Some(t) = self.items_t.take() {
            self.device.free(t.buffer);
        }
        if let Some(c) = self.columns.take() {
            self.device.free(c.buffer);
        }
        if let Some(p) = self.pooled.take() {
            for b in [p.keys.buffer, p.prefix.buffer, p.below.buffer, p.equal.buffer] {
                self.device.free(b);
            }
        }
    }
}

fn to_u32<E>(n: usize) -> Result<u32, Error<E>> {
    u32::try_from(n).map_err(|_| {
        Error::Metrics(invalid(
            "block",
            format!("{n} entries"),
            "fewer than 2^32 entries per block",
        ))
    })
}
