//! The GPU path on a real GPU: the kernels compile with NVRTC, and the reports equal the
//! CPU path's byte for byte. Without NVRTC or a GPU the tests print a notice and pass,
//! unless `RECS_REQUIRE_GPU=1` asks for a GPU (the device machine's check script).

mod support;

use recs_cuda::{
    Cuda, DeviceSettings, Kernel, Scores, compile_kernels, evaluate_catalog_on, nvrtc_present,
};
use recs_metrics::stream::{CatalogMetrics, evaluate_catalog};
use recs_metrics::{Metric, Options, TieBreak};
use support::FactorSource;

fn gpu_required() -> bool {
    std::env::var("RECS_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

#[test]
fn kernels_compile_with_nvrtc() {
    if !nvrtc_present() {
        assert!(!gpu_required(), "RECS_REQUIRE_GPU=1 and no NVRTC");
        eprintln!("notice: no NVRTC library (libnvrtc.so): the kernels' GPU build is not tested");
        return;
    }
    let ptx = compile_kernels().unwrap().to_src();
    for name in Kernel::ALL.map(Kernel::name) {
        assert!(ptx.contains(&format!(".entry {name}(")), "{name} in the PTX");
    }
    // Double-precision additions and conversions as written: no contraction, round to
    // nearest.
    assert!(ptx.contains("fma.rn.f64") && ptx.contains("cvt.rn.f32.f64"));
    // Machine code for a Hopper GPU (what Cuda::open loads): an ELF image.
    let cubin = recs_cuda::compile_kernels_for(9, 0).unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF");
}

fn gpu() -> Option<Cuda> {
    match Cuda::open(0) {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            assert!(!gpu_required(), "RECS_REQUIRE_GPU=1: {e}");
            eprintln!("notice: {e}; the GPU tests are skipped");
            None
        }
    }
}

/// A generated case with many tied scores: `n_users` users, `n_items` items, rank 4.
fn generated(n_users: usize, n_items: usize, seed: u64) -> FactorSource {
    let rank = 4;
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state >> 33
    };
    let mut source = FactorSource {
        n_items,
        rank,
        users: (0..n_users * rank).map(|_| (next() % 5) as f32 / 4.0 - 0.5).collect(),
        items: (0..n_items * rank).map(|_| (next() % 5) as f32 / 4.0 - 0.5).collect(),
        rows: (0..n_users as u32).collect(),
        excluded: Vec::new(),
        graded: Vec::new(),
        grades: Vec::new(),
    };
    for _ in 0..n_users {
        let (mut excluded, mut graded, mut grades) = (vec![], vec![], vec![]);
        for item in 0..n_items as u32 {
            match next() % 10 {
                0 => excluded.push(item),
                1 => {
                    graded.push(item);
                    grades.push((1 + next() % 5) as f32);
                }
                _ => {}
            }
        }
        source.excluded.push(excluded);
        source.graded.push(graded);
        source.grades.push(grades);
    }
    source
}

#[test]
fn gpu_reports_equal_the_cpu_reports() {
    let Some(mut gpu) = gpu() else { return };
    let metrics =
        Metric::parse_list("roc,croc,user_auc,p@3,r@20,ndcg@10,ndcg_exp@4,map,mrr").unwrap();
    for (n_users, n_items, seed) in [(3, 5, 1), (100, 700, 2), (1000, 3000, 3)] {
        let source = generated(n_users, n_items, seed);
        for ties in [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending] {
            let options = Options { threshold: 3.0, ties, ..Options::default() };
            let settings =
                CatalogMetrics { metrics: &metrics, options, max_fpr: 0.3, memory_budget: 1 << 30 };
            let cpu = format!("{:?}", evaluate_catalog(&source, settings, true, &()).unwrap());
            for (factors, block_users) in [
                (Scores::Factors(source.factors()), None),
                (Scores::Factors(source.factors()), Some(7)),
                (Scores::Host, Some(64)),
            ] {
                let device = DeviceSettings { block_users, ..DeviceSettings::default() };
                let report =
                    evaluate_catalog_on(&mut gpu, &source, factors, settings, device, true, &())
                        .unwrap();
                assert_eq!(format!("{report:?}"), cpu, "{n_users}×{n_items}, {ties:?}");
            }
        }
    }
}

/// The counting kernels keep their per-thread state in registers on a Hopper GPU: no
/// stack frame (local memory) and no spills, by ptxas's own report.
#[test]
#[allow(unsafe_code)]
fn counting_kernels_keep_their_state_in_registers() {
    use cudarc::nvrtc::result;
    if !nvrtc_present() {
        eprintln!("notice: no NVRTC library (libnvrtc.so): the kernels' resources are not checked");
        return;
    }
    let source = std::ffi::CString::new(recs_cuda::KERNELS).unwrap();
    let program = result::create_program(&source, None).unwrap();
    let options = ["--gpu-architecture=sm_90", "--fmad=false", "--ptxas-options=-v"];
    // SAFETY: a program created above, destroyed once at the end.
    let log = unsafe {
        result::compile_program(program, &options).unwrap();
        let log = result::get_program_log(program).unwrap();
        let log = std::ffi::CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
        result::destroy_program(program).unwrap();
        log
    };
    for kernel in ["count_factors", "count_scores"] {
        let at = log.find(&format!("Function properties for {kernel}")).expect("ptxas's report");
        let line = log[at..].lines().nth(1).unwrap();
        assert!(
            line.contains(" 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"),
            "{kernel}: {line}"
        );
    }
}
