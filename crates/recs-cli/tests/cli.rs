//! End-to-end checks of the `recs` binary's basic surface.

use assert_cmd::Command;

#[test]
fn version_flag_prints_the_crate_version() {
    let out = Command::cargo_bin("recs").unwrap().arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim(), format!("recs {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_subcommands() {
    let out = Command::cargo_bin("recs").unwrap().arg("--help").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().contains("Usage: recs"));
}

#[test]
fn unknown_subcommand_is_an_error() {
    let out = Command::cargo_bin("recs").unwrap().arg("no-such-command").output().unwrap();
    assert!(!out.status.success());
}
