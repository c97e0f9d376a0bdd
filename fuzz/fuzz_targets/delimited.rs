//! Delimited interaction parser: any bytes, several formats; must never panic and must
//! keep the dataset invariants on success.
#![no_main]

use libfuzzer_sys::fuzz_target;
use recs_data::{DelimitedFormat, parse_delimited};

fuzz_target!(|data: &[u8]| {
    let formats = [
        DelimitedFormat::movielens_100k(),
        DelimitedFormat::movielens_1m(),
        DelimitedFormat::movielens_csv(),
        DelimitedFormat::new(",").unwrap().rating(None),
    ];
    for format in &formats {
        if let Ok(d) = parse_delimited(data, "fuzz", format) {
            assert_eq!(d.users.len(), d.n_users());
            assert_eq!(d.items.len(), d.n_items());
            assert!(d.n_events() > 0);
        }
    }
});
