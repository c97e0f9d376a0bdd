//! Conventions enforced as an ordinary test: the dependency direction of
//! `docs/architecture.md`, workspace lints and metadata in every manifest, and crate
//! documentation at the top of every crate root.

use std::fs;
use std::path::{Path, PathBuf};

use toml::Table;

/// Which `recs` crates a member may depend on. `dev` lists the extra ones allowed as
/// dev-dependencies only.
fn allowed(member: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    const CORE: &[&str] = &["recs-core"];
    const LIBRARIES: &[&str] = &[
        "recs-core",
        "recs-data",
        "recs-split",
        "recs-metrics",
        "recs-models-baseline",
        "recs-models-bayes",
        "recs-models-latent",
        "recs-models-knn",
    ];
    const ABOVE_BENCH: &[&str] = &[
        "recs-core",
        "recs-data",
        "recs-split",
        "recs-metrics",
        "recs-models-baseline",
        "recs-models-bayes",
        "recs-models-latent",
        "recs-models-knn",
        "recs-bench",
    ];
    Some(match member {
        "recs-core" => (&[], &[]),
        "recs-testkit" => (CORE, &[]),
        "recs-metrics" => (CORE, &["recs-testkit"]),
        "recs-data" => (CORE, &["recs-testkit"]),
        "recs-split" => (CORE, &["recs-testkit", "recs-data"]),
        m if m.starts_with("recs-models-") => (CORE, &["recs-testkit", "recs-data"]),
        "recs-bench" => (LIBRARIES, &["recs-testkit"]),
        "recs-cli" | "xtask" | "recs" => (ABOVE_BENCH, &["recs-testkit"]),
        _ => return None,
    })
}

/// Every problem found in one manifest. `crate_root_text` is the text of its `lib.rs`
/// or `main.rs`.
fn check_manifest(manifest: &str, crate_root_text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let table: Table = match manifest.parse() {
        Ok(t) => t,
        Err(e) => return vec![format!("manifest does not parse: {e}")],
    };
    let Some(package) = table.get("package").and_then(|p| p.as_table()) else {
        return vec!["no [package] table".to_string()];
    };
    let name = package.get("name").and_then(|n| n.as_str()).unwrap_or("?").to_string();
    let Some((normal, dev_extra)) = allowed(&name) else {
        return vec![format!(
            "`{name}` is not a known member: add it to the layering in tests/tidy.rs"
        )];
    };
    for field in ["version", "edition", "license"] {
        let inherited = package
            .get(field)
            .and_then(|v| v.as_table())
            .and_then(|t| t.get("workspace"))
            .and_then(|w| w.as_bool())
            == Some(true);
        if !inherited {
            problems.push(format!("{name}: `package.{field}` must be `{field}.workspace = true`"));
        }
    }
    let lints_inherited = table
        .get("lints")
        .and_then(|l| l.as_table())
        .and_then(|l| l.get("workspace"))
        .and_then(|w| w.as_bool())
        == Some(true);
    if !lints_inherited {
        problems.push(format!("{name}: missing `[lints] workspace = true`"));
    }
    for (section, allowed_here) in [
        ("dependencies", normal.to_vec()),
        ("dev-dependencies", {
            let mut v = normal.to_vec();
            v.extend_from_slice(dev_extra);
            v
        }),
    ] {
        let Some(deps) = table.get(section).and_then(|d| d.as_table()) else { continue };
        for dep in deps.keys().filter(|d| d.starts_with("recs-")) {
            if !allowed_here.contains(&dep.as_str()) {
                problems.push(format!("{name}: forbidden edge to `{dep}` in [{section}]"));
            }
        }
    }
    if !crate_root_text.trim_start().starts_with("//!") {
        problems.push(format!("{name}: crate root must open with `//!` documentation"));
    }
    problems
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn crate_root(dir: &Path) -> String {
    ["src/lib.rs", "src/main.rs"]
        .iter()
        .find_map(|f| fs::read_to_string(dir.join(f)).ok())
        .unwrap_or_default()
}

#[test]
fn every_member_follows_the_layering_and_conventions() {
    let root = workspace_root();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let table: Table = manifest.parse().unwrap();
    let members: Vec<String> = table["workspace"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert!(members.len() >= 12, "expected every crate and xtask as members: {members:?}");
    let mut problems = check_manifest(&manifest, &crate_root(&root));
    for member in &members {
        let dir = root.join(member);
        let text = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        problems.extend(check_manifest(&text, &crate_root(&dir)));
    }
    assert!(problems.is_empty(), "tidy problems:\n  {}", problems.join("\n  "));
}

#[test]
fn no_should_panic_tests() {
    // Bad input must give `Err`; a test expecting a panic would bless the opposite.
    let mut offenders = Vec::new();
    let mut stack = vec![workspace_root().join("crates"), workspace_root().join("tests")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path != workspace_root().join(file!())
            {
                let text = fs::read_to_string(&path).unwrap();
                if text.contains(concat!("#[should", "_panic")) {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    assert!(offenders.is_empty(), "#[should_panic] found in {offenders:?}");
}

const GOOD: &str = r#"
[package]
name = "recs-models-knn"
version.workspace = true
edition.workspace = true
license.workspace = true
[lints]
workspace = true
[dependencies]
recs-core.workspace = true
[dev-dependencies]
recs-testkit.workspace = true
recs-data.workspace = true
"#;

#[test]
fn checker_accepts_a_conforming_manifest() {
    assert_eq!(check_manifest(GOOD, "//! docs"), Vec::<String>::new());
}

#[test]
fn checker_rejects_a_model_depending_on_metrics() {
    let bad = GOOD.replace(
        "[dependencies]\nrecs-core.workspace = true",
        "[dependencies]\nrecs-core.workspace = true\nrecs-metrics.workspace = true",
    );
    let problems = check_manifest(&bad, "//! docs");
    assert_eq!(problems, ["recs-models-knn: forbidden edge to `recs-metrics` in [dependencies]"]);
}

#[test]
fn checker_rejects_missing_lints_docs_and_inheritance() {
    let bad = GOOD
        .replace("[lints]\nworkspace = true\n", "")
        .replace("edition.workspace = true", "edition = \"2021\"");
    let problems = check_manifest(&bad, "use std::fs;");
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("lints")));
    assert!(problems.iter().any(|p| p.contains("package.edition")));
    assert!(problems.iter().any(|p| p.contains("//!")));
}

#[test]
fn checker_rejects_core_depending_on_anything() {
    let bad = GOOD.replace("name = \"recs-models-knn\"", "name = \"recs-core\"");
    let problems = check_manifest(&bad, "//! docs");
    assert!(problems.iter().any(|p| p.contains("`recs-core` in [dependencies]")), "{problems:?}");
    assert!(
        problems.iter().any(|p| p.contains("`recs-testkit` in [dev-dependencies]")),
        "{problems:?}"
    );
}

#[test]
fn every_reproduction_has_its_documentation_page() {
    let root = workspace_root();
    let dir = root.join("xtask/src/reproduce");
    let Ok(entries) = fs::read_dir(&dir) else { return };
    let mut missing = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if stem == "mod" || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        if !root.join("docs/reproductions").join(format!("{stem}.md")).is_file() {
            missing.push(stem.to_string());
        }
    }
    assert!(missing.is_empty(), "reproductions without docs/reproductions/<name>.md: {missing:?}");
}
