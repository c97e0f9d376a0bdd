//! Item attribute files (`item<TAB>rank<TAB>attribute`): must never panic, and filters
//! only ever remove attributes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use recs_core::IdMap;
use recs_data::{AttributeFilter, parse_item_attributes};

fuzz_target!(|data: &[u8]| {
    let items = IdMap::from_ids_sorted(["1", "2", "3", "10"]).unwrap();
    let all = parse_item_attributes(data, "fuzz", &items, &AttributeFilter::default());
    let some = parse_item_attributes(
        data,
        "fuzz",
        &items,
        &AttributeFilter { top_n: Some(2), min_items: 2 },
    );
    match (all, some) {
        (Ok(a), Ok(b)) => assert!(b.csr().nnz() <= a.csr().nnz()),
        (Err(_), Err(_)) => {}
        _ => panic!("filters changed whether the file parses"),
    }
});
