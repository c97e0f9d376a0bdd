//! Data for the model crates' benchmarks, and its export for the peer scripts in `tools/`,
//! so that every bench times the same matrices and a peer is timed on exactly them.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use recs_core::{DuplicatePolicy, Event, Interactions};

/// A matrix with skewed user activity and item popularity (both roughly Zipf-like),
/// ratings 1–5, exactly `events` distinct pairs. Deterministic for a seed.
///
/// # Panics
/// When `events` exceeds `users × items`, or either is zero.
pub fn skewed(users: usize, items: usize, events: usize, seed: u64) -> Interactions {
    assert!(users > 0 && items > 0 && events <= users * items, "no such matrix");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut seen = std::collections::HashSet::with_capacity(events);
    let mut list = Vec::with_capacity(events);
    while list.len() < events {
        // Inverse-power draws concentrate on small indices.
        let u = ((users as f64) * unit().powf(1.6)) as u32 % users as u32;
        let i = ((items as f64) * unit().powf(2.2)) as u32 % items as u32;
        if seen.insert((u, i)) {
            list.push(Event::new(u, i, 1.0 + (unit() * 5.0).floor().min(4.0) as f32));
        }
    }
    Interactions::from_events(users, items, list, DuplicatePolicy::Error).expect("valid events")
}

/// Writes `train` as `user<TAB>item<TAB>rating` lines, under a `# users items` line, to
/// `$RECS_BENCH_EXPORT/<name>.tsv` when that variable is set, so that a peer script times
/// its peers on exactly the matrix the bench times.
///
/// # Panics
/// When the folder or the file cannot be written.
pub fn export(name: &str, train: &Interactions) {
    let Some(dir) = std::env::var_os("RECS_BENCH_EXPORT") else { return };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("export folder");
    let mut text = format!("# {} {}\n", train.n_users(), train.n_items());
    for event in train.events() {
        text.push_str(&format!("{}\t{}\t{}\n", event.user, event.item, event.value));
    }
    std::fs::write(dir.join(format!("{name}.tsv")), text).expect("export file");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skewed_matrix_has_its_events_and_favours_small_indices() {
        let m = skewed(50, 40, 600, 3);
        assert_eq!((m.n_users(), m.n_items(), m.events().count()), (50, 40, 600));
        let first_half = m.events().filter(|e| (e.item as usize) < 20).count();
        assert!(first_half > 400, "{first_half} of 600 events on the first half of the items");
        let pairs = |m: &Interactions| -> Vec<(u32, u32, f32)> {
            m.events().map(|e| (e.user, e.item, e.value)).collect()
        };
        assert_eq!(pairs(&m), pairs(&skewed(50, 40, 600, 3)), "one seed, one matrix");
    }
}
