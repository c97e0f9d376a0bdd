//! MS Web records: must never panic; a parsed file assembles into a consistent dataset.
#![no_main]

use libfuzzer_sys::fuzz_target;
use recs_data::{MsWebOptions, assemble_msweb, parse_msweb};

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = parse_msweb(data, "fuzz") {
        let d = assemble_msweb(&file, &file, &MsWebOptions::default()).expect("assemble");
        assert_eq!(d.n_events(), file.n_visits());
    }
});
