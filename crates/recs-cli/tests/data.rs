//! End-to-end checks of `recs data`.

use assert_cmd::Command;
use recs_testkit::real_data_dir;

fn recs() -> Command {
    let mut cmd = Command::cargo_bin("recs").unwrap();
    cmd.env_remove("RECS_DATA_DIR");
    cmd
}

#[test]
fn stats_json_of_movielens_100k_has_the_published_groups() {
    let Some(dir) = real_data_dir() else { return };
    let out = recs()
        .args(["data", "stats", "ml-100k", "--offline", "--json", "--group-bounds", "1,100,200"])
        .env("RECS_DATA_DIR", &dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["n_users"], 943);
    assert_eq!(v["n_items"], 1682);
    assert_eq!(v["n_events"], 100_000);
    let users: Vec<u64> =
        v["groups"].as_array().unwrap().iter().map(|g| g["n_users"].as_u64().unwrap()).collect();
    assert_eq!(users, [579, 215, 149]);
    assert_eq!(v["groups"][2]["hi"], serde_json::Value::Null);
    assert!(v["head_items"].as_u64().unwrap() > 0);
    assert!((v["density"].as_f64().unwrap() - 100_000.0 / (943.0 * 1682.0)).abs() < 1e-12);
}

#[test]
fn fetch_finds_and_verifies_through_data_dir() {
    let Some(dir) = real_data_dir() else { return };
    let out = recs()
        .args(["data", "fetch", "msweb", "--offline", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2a1300e9e0962dd6eb4d5982ab06cf04461f942f3faed82451661740a13dcd72"));
    assert!(text.contains("verified"));
}

#[test]
fn fetch_offline_without_data_says_what_to_do() {
    let empty = tempfile::tempdir().unwrap();
    let out = recs()
        .args(["data", "fetch", "ml-100k", "--offline", "--data-dir"])
        .arg(empty.path())
        .env("XDG_CACHE_HOME", empty.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("RECS_DATA_DIR") && err.contains("files.grouplens.org"), "{err}");
    let out = recs().args(["data", "fetch", "no-such-set", "--offline"]).output().unwrap();
    assert!(String::from_utf8(out.stderr).unwrap().contains("unknown dataset `no-such-set`"));
}

#[test]
fn synth_then_stats_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let synth = |name: &str| {
        let file = dir.path().join(name);
        let out = recs()
            .args(["data", "synth", "--users", "300", "--items", "100", "--events", "3000"])
            .args(["--seed", "7", "--out"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        file
    };
    let file = synth("synth.tsv");
    let first = std::fs::read(&file).unwrap();
    // Same seed: byte-identical file.
    assert_eq!(first, std::fs::read(synth("again.tsv")).unwrap());
    let out = recs().args(["data", "stats", "--json", "--file"]).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["n_users"], 300);
    let n_events = v["n_events"].as_u64().unwrap();
    assert!((2900..=3100).contains(&n_events), "{n_events}");
    let lines = first.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(lines, n_events);
}

/// A tenth of the NewMovies figures (top 80 of 771 items hold 50% of events; users
/// [2..9] / [10..19] / [20..]), calibrated on the command line and checked by `stats`.
#[test]
fn synth_calibrated_to_newmovies_targets_matches_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("newmovies.tsv");
    let out = recs()
        .args([
            "data",
            "synth",
            "--users",
            "2680",
            "--items",
            "771",
            "--events",
            "18646",
            "--min-per-user",
            "1",
            "--groups",
            "2:2181,10:340,20:157",
            "--head",
            "80:0.5",
            "--seed",
            "3",
        ])
        .arg("--out")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("calibrated item exponent"));
    let out = recs()
        .args(["data", "stats", "--implicit", "--json", "--group-bounds", "2,10,20", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["n_users"], 2680);
    let head = v["head_items"].as_u64().unwrap();
    assert!(head.abs_diff(80) <= 4, "head {head}");
    let users: Vec<u64> =
        v["groups"].as_array().unwrap().iter().map(|g| g["n_users"].as_u64().unwrap()).collect();
    for (got, want) in users.iter().zip([2181.0, 340.0, 157.0]) {
        assert!((*got as f64 - want).abs() / 2680.0 < 0.02, "{users:?}");
    }
    let events = v["n_events"].as_u64().unwrap();
    assert!(events.abs_diff(18_646) < 187, "{events}");
}

#[test]
fn synth_refuses_bad_calibration_options_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("never.tsv");
    for (extra, message) in [
        (&["--groups", "10:5,2:5"][..], "user_groups"),
        (&["--groups", "2-5"][..], "LO:USERS"),
        (&["--groups", "2:900", "--users", "900", "--events", "100"][..], "n_events"),
        (&["--head", "80"][..], "N:SHARE"),
        (&["--head", "0:0.5"][..], "head"),
        (&["--groups", "2:900", "--long-profiles", "10:0.2"][..], "cannot be used with"),
    ] {
        let out =
            recs().args(["data", "synth"]).args(extra).arg("--out").arg(&file).output().unwrap();
        assert!(!out.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{extra:?}: {err}");
        assert!(!file.exists(), "{extra:?}");
    }
}

#[test]
fn synth_ignatov_writes_the_block_matrix_and_table_output_works() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("blocks.tsv");
    recs().args(["data", "synth", "--kind", "ignatov", "--out"]).arg(&file).assert().success();
    let out = recs().args(["data", "stats", "--implicit", "--file"]).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("events             100"), "{text}");
    assert!(text.contains("users              20"), "{text}");

    let file = dir.path().join("overlapping.tsv");
    let args = ["data", "synth", "--kind", "ignatov-overlapping", "--out"];
    recs().args(args).arg(&file).assert().success();
    let text = std::fs::read_to_string(&file).unwrap();
    // User 6 (the second rectangle) took items 4..=8.
    let items: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("6\t")?.split('\t').next()).collect();
    assert_eq!(items, ["4", "5", "6", "7", "8"]);
}

#[test]
fn malformed_file_error_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.tsv");
    std::fs::write(&file, "1\t2\t3\n1\t3\tfive\n").unwrap();
    let out = recs().args(["data", "stats", "--file"]).arg(&file).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.tsv:2: expected a numeric rating, found \"five\""), "{err}");
}

#[test]
fn list_names_the_registry() {
    let out = recs().args(["data", "list"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["ml-100k", "msweb", "ml-100k-cast", "ml-20m"] {
        assert!(text.contains(name), "{text}");
    }
}

#[test]
fn a_movielens_ratings_csv_reads_with_no_flags() {
    // The layout of `ratings.csv` in every MovieLens CSV release: header, commas,
    // half-star ratings and a timestamp column.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ratings.csv");
    let text = "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,4.0,964981247\n\
                2,1,3.5,1445714835\n2,318,5.0,1445714835\n3,31,0.5,1306463578\n";
    std::fs::write(&file, text).unwrap();
    let stats = |extra: &[&str]| {
        let out = recs()
            .args(["data", "stats", "--json", "--file"])
            .arg(&file)
            .args(extra)
            .output()
            .unwrap();
        (out.status.success(), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (ok, stdout, stderr) = stats(&[]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!((v["n_users"].as_u64(), v["n_events"].as_u64()), (Some(3), Some(5)));
    // Saying there is no header reads the header as data, and fails at its rating.
    let (ok, _, stderr) = stats(&["--no-header"]);
    assert!(!ok && stderr.contains("ratings.csv:1:"), "{stderr}");
}
