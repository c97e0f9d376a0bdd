//! The GPU path with the kernels of `kernels.cu` compiled for the CPU: the report equals
//! the CPU path's byte for byte, for every tie policy, block size and score source, on
//! generated cases full of ties and on MovieLens 100K.

mod support;

use proptest::prelude::*;
use recs_cuda::Emulator as Emulated;
use recs_cuda::{DeviceSettings, Scores, evaluate_catalog_on};
use recs_metrics::stream::{CatalogMetrics, evaluate_catalog};
use recs_metrics::{Metric, Options, TieBreak};
use support::{FactorSource, RowsOnDevice, emulator};

const METRICS: &str = "roc,croc,user_auc,p@3,r@5,ndcg@4,ndcg_exp@4,ap@5,map,mrr,half_life@3";

/// The CPU report and the emulated device's (factor scores, then source scores, then
/// scores already on the device, with `block_users` users per block), as text.
fn both(
    device: &mut Emulated,
    source: &FactorSource,
    options: Options,
    block_users: Option<usize>,
) -> (String, String, String) {
    let (cpu, factors, host) = three(device, source, options, block_users);
    let on_device = RowsOnDevice::new(source, 3, None);
    let given = run(device, source, options, block_users, Scores::Device(&on_device));
    assert_eq!(given, cpu, "scores on the device");
    (cpu, factors, host)
}

/// One report of `scores` on the emulated device, as text.
fn run(
    device: &mut Emulated,
    source: &FactorSource,
    options: Options,
    block_users: Option<usize>,
    scores: Scores<'_, recs_metrics::MetricsError>,
) -> String {
    let metrics = Metric::parse_list(METRICS).unwrap();
    let settings =
        CatalogMetrics { metrics: &metrics, options, max_fpr: 0.3, memory_budget: 1 << 30 };
    let device_settings = DeviceSettings { block_users, ..DeviceSettings::default() };
    let report =
        evaluate_catalog_on(device, source, scores, settings, device_settings, true, &()).unwrap();
    format!("{report:?}")
}

/// The CPU report, and the emulated device's from factors and from the host's scores.
fn three(
    device: &mut Emulated,
    source: &FactorSource,
    options: Options,
    block_users: Option<usize>,
) -> (String, String, String) {
    let metrics = Metric::parse_list(METRICS).unwrap();
    let settings =
        CatalogMetrics { metrics: &metrics, options, max_fpr: 0.3, memory_budget: 1 << 30 };
    let cpu = evaluate_catalog(source, settings, true, &()).unwrap();
    let factors = run(device, source, options, block_users, Scores::Factors(source.factors()));
    let scores = run(device, source, options, block_users, Scores::Host);
    (format!("{cpu:?}"), factors, scores)
}

/// Users over `n_items` items with factors from few values (many tied scores), each
/// item excluded, graded (grades 1–5) or neither, and factor rows shared by some users.
fn cases() -> impl Strategy<Value = FactorSource> {
    (3usize..40, 1usize..4, 1usize..20).prop_flat_map(|(n_items, rank, n_users)| {
        let value = prop::sample::select(vec![-1.0f32, -0.5, 0.0, 0.25, 0.5, 1.0]);
        (
            prop::collection::vec(value.clone(), n_items * rank),
            prop::collection::vec(value, n_users * rank),
            prop::collection::vec(prop::collection::vec((0u8..4, 1u8..6), n_items), n_users),
            prop::collection::vec(0u32..n_users as u32, n_users),
        )
            .prop_map(move |(items, users, roles, rows)| {
                let mut source = FactorSource {
                    n_items,
                    rank,
                    users,
                    items,
                    rows,
                    excluded: Vec::new(),
                    graded: Vec::new(),
                    grades: Vec::new(),
                };
                for user in roles {
                    let (mut excluded, mut graded, mut grades) = (vec![], vec![], vec![]);
                    for (item, (role, grade)) in user.into_iter().enumerate() {
                        match role {
                            0 => excluded.push(item as u32),
                            1 => {
                                graded.push(item as u32);
                                grades.push(f32::from(grade));
                            }
                            _ => {}
                        }
                    }
                    source.excluded.push(excluded);
                    source.graded.push(graded);
                    source.grades.push(grades);
                }
                source
            })
    })
}

fn device() -> Option<Emulated> {
    emulator()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn emulated_kernels_give_the_cpu_report(
        source in cases(),
        ties in 0usize..3,
        threshold in 1u8..4,
        block in prop::option::of(1usize..6),
    ) {
        let Some(mut device) = device() else { return Ok(()) };
        let options = Options {
            threshold: f32::from(threshold),
            ties: [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending][ties],
            ..Options::default()
        };
        let (cpu, factors, scores) = both(&mut device, &source, options, block);
        prop_assert_eq!(&factors, &cpu);
        prop_assert_eq!(&scores, &cpu);
    }
}

#[test]
fn a_run_frees_what_it_allocates_and_launches_per_block() {
    let Some(mut device) = device() else { return };
    let mut source = FactorSource {
        n_items: 5,
        rank: 1,
        users: vec![1.0, -1.0, 0.5],
        items: vec![0.9, 0.1, 0.5, 0.7, 0.5],
        rows: vec![0, 1, 2],
        excluded: vec![vec![3], vec![0], vec![]],
        graded: vec![vec![2, 4], vec![1], vec![]],
        grades: vec![vec![1.0, 5.0], vec![2.0], vec![]],
    };
    let (cpu, factors, _) = both(&mut device, &source, Options::default(), Some(2));
    assert_eq!(factors, cpu);
    // Two blocks (two users, then one), each launching two marks and one count, from
    // factors and from the host's scores; with scores on the device, each block is also
    // gathered from in both passes (the pooled ROC's positives first).
    assert_eq!(device.launches(), 2 * 3 * 2 + 2 * (1 + 4));
    assert!(device_is_empty(&device), "every buffer is freed");
    // A bad list is refused before anything reaches the device.
    source.excluded[0] = vec![3, 1];
    let metrics = Metric::parse_list("ndcg@2").unwrap();
    let settings = CatalogMetrics {
        metrics: &metrics,
        options: Options::default(),
        max_fpr: 0.3,
        memory_budget: 1 << 30,
    };
    let error = evaluate_catalog_on(
        &mut device,
        &source,
        Scores::Factors(source.factors()),
        settings,
        DeviceSettings::default(),
        false,
        &(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("ascending"), "{error}");
    assert!(device_is_empty(&device), "a failed run frees what it allocated");
    // A budget below one user is an error that says so.
    let tiny = DeviceSettings { memory_budget: 16, block_users: None };
    source.excluded[0] = vec![3];
    let error = evaluate_catalog_on(&mut device, &source, Scores::Host, settings, tiny, false, &())
        .unwrap_err();
    assert!(error.to_string().contains("budget"), "{error}");
    // Scores on the device that change between the two passes are refused, naming the
    // pair; a layout without a place for every item too.
    let roc = Metric::parse_list("roc,ndcg@2").unwrap();
    let settings = CatalogMetrics { metrics: &roc, ..settings };
    let drifting = RowsOnDevice::new(&source, 0, Some(1));
    let error = evaluate_catalog_on(
        &mut device,
        &source,
        Scores::Device(&drifting),
        settings,
        DeviceSettings { block_users: Some(10), ..DeviceSettings::default() },
        false,
        &(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("in the first pass and"), "{error}");
    let mut short = RowsOnDevice::new(&source, 0, None);
    short.columns.pop();
    let error = evaluate_catalog_on(
        &mut device,
        &source,
        Scores::Device(&short),
        settings,
        DeviceSettings::default(),
        false,
        &(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("a place in a row for every item"), "{error}");
    assert!(device_is_empty(&device), "failed runs free what they allocated");
}

fn device_is_empty(device: &Emulated) -> bool {
    device.live_buffers() == 0
}

/// MovieLens 100K: each user's last fifth of events by time held out and graded by
/// rating, the rest excluded; seeded factors of rank 16 rounded to few values, so that
/// ties occur.
#[test]
fn movielens_100k_reports_are_identical() {
    let Some(dir) = recs_testkit::real_data_dir() else { return };
    let Some(mut device) = device() else { return };
    let text = std::fs::read_to_string(dir.join("ml-100k/u.data")).unwrap();
    let mut events: Vec<(u32, u32, f32, u64)> = text
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect();
    events.sort_by_key(|&(u, _, _, t)| (u, t));
    let n_users = events.iter().map(|e| e.0).max().unwrap() as usize;
    let n_items = events.iter().map(|e| e.1).max().unwrap() as usize;
    let rank = 16;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 40) % 9) as f32 / 8.0 - 0.5
    };
    let mut source = FactorSource {
        n_items,
        rank,
        users: (0..n_users * rank).map(|_| next()).collect(),
        items: (0..n_items * rank).map(|_| next()).collect(),
        rows: (0..n_users as u32).collect(),
        excluded: vec![Vec::new(); n_users],
        graded: vec![Vec::new(); n_users],
        grades: vec![Vec::new(); n_users],
    };
    for user in events.chunk_by(|a, b| a.0 == b.0) {
        let u = user[0].0 as usize - 1;
        let test = user.len() / 5;
        let mut train: Vec<u32> = user[..user.len() - test].iter().map(|e| e.1 - 1).collect();
        let mut held: Vec<(u32, f32)> =
            user[user.len() - test..].iter().map(|e| (e.1 - 1, e.2)).collect();
        train.sort_unstable();
        held.sort_unstable_by_key(|e| e.0);
        source.excluded[u] = train;
        source.graded[u] = held.iter().map(|e| e.0).collect();
        source.grades[u] = held.iter().map(|e| e.1).collect();
    }
    // Blocks of 200 users, and one block of every user (finished in several parts).
    for (ties, block) in [(TieBreak::Expected, Some(200)), (TieBreak::ItemDescending, None)] {
        let options = Options { threshold: 4.0, ties, ..Options::default() };
        let (cpu, factors, scores) = both(&mut device, &source, options, block);
        assert_eq!(factors, cpu, "{ties:?}");
        assert_eq!(scores, cpu, "{ties:?}");
        assert!(cpu.contains("croc"), "the report holds the CROC curve");
    }
}
