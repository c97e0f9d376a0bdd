//! Interaction files read with no flags (delimiter and header found from the file), as
//! `recs split`, `recs score` and configurations read them: any bytes must give a
//! located error or a dataset that keeps its invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use recs_data::{DelimitedFormat, parse_delimited};

fuzz_target!(|data: &[u8]| {
    let format = DelimitedFormat::detected();
    if let Ok(d) = parse_delimited(data, "fuzz", &format) {
        assert_eq!(d.users.len(), d.n_users());
        assert_eq!(d.items.len(), d.n_items());
        assert!(d.n_events() > 0);
    }
    if let Ok(d) = parse_delimited(data, "fuzz", &format.clone().rating(None)) {
        assert!(d.n_events() > 0);
    }
});
