//! MovieLens item files (`u.item`, `movies.dat`, `movies.csv`): must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use recs_data::{MovieLensRelease, parse_movielens_items};

fuzz_target!(|data: &[u8]| {
    for release in [
        None,
        Some(MovieLensRelease::OneMillion),
        Some(MovieLensRelease::TenMillion),
        Some(MovieLensRelease::Csv),
    ] {
        if let Ok((items, info, attributes)) = parse_movielens_items(data, "fuzz", release) {
            assert_eq!(items.len(), info.len());
            assert_eq!(items.len(), attributes.n_items());
        }
    }
});
