//! Times fitting item-kNN on a file of `user<TAB>item<TAB>value` lines (0-based or
//! 1-based integer ids; the largest id sets the dimension). Used by `tools/bench_knn.py`
//! to compare with a peer library in the same run.
//!
//! `cargo run --release -p recs-models-knn --example fit_knn -- FILE [K] [REPEATS] [SIMILARITY]`
//! prints one JSON line: events, k, similarity, the median fit time in seconds, and the
//! number of kept neighbour pairs.

use std::error::Error;
use std::time::Instant;

use recs_core::{DuplicatePolicy, Event, Fit, Interactions, TrainData};
use recs_models_knn::{ItemKnnParams, KnnParams, Similarity, Ties};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: fit_knn FILE [K] [REPEATS] [SIMILARITY]")?;
    let k: usize = args.get(2).map_or(Ok(20), |s| s.parse())?;
    let repeats: usize = args.get(3).map_or(Ok(5), |s| s.parse())?;
    let similarity: Similarity = args.get(4).map_or(Ok(Similarity::Cosine), |s| s.parse())?;
    let text = std::fs::read_to_string(path)?;
    let mut events = Vec::new();
    let (mut n_users, mut n_items) = (0usize, 0usize);
    for (n, line) in text.lines().enumerate() {
        let mut fields = line.split('\t');
        let mut next = || fields.next().ok_or_else(|| format!("{path}:{}: missing field", n + 1));
        let user: u32 = next()?.parse().map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let item: u32 = next()?.parse().map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let value: f32 = next()?.parse().map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        n_users = n_users.max(user as usize + 1);
        n_items = n_items.max(item as usize + 1);
        events.push(Event::new(user, item, value));
    }
    let train = Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Error)?;
    // Cut ties so both libraries keep exactly k neighbours per item.
    let params = ItemKnnParams::new(KnnParams::new().k(k).similarity(similarity).ties(Ties::Cut))?;
    let data = TrainData::new(&train, 0);
    let _ = train.item_users(0); // build the item-major view outside the timing
    let mut times = Vec::with_capacity(repeats);
    let mut kept = 0;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let model = params.fit(&data)?;
        times.push(start.elapsed().as_secs_f64());
        kept = model.similarity_matrix().nnz();
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let line = format!(
        "{{\"events\": {}, \"k\": {k}, \"similarity\": \"{similarity}\", \"fit_seconds\": {median}, \"neighbour_pairs\": {kept}, \"threads\": {}}}",
        train.n_events(),
        rayon::current_num_threads()
    );
    println!("{line}");
    Ok(())
}
