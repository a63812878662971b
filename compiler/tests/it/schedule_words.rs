//! `flowc report` says each schedule in words with its first intervals in
//! the pipeline's zone (issue 36 item 11), so `2 0 * * *` meant as 02:00
//! reads plainly as 00:02. Through the real binary.

use assert_cmd::Command;

const FLOW: &str = r#"pipeline nightly {
  schedule  "2 0 * * *"
  start     2026-03-28
  timezone  "Europe/Berlin"
  task t {
    run command ["true"]
  }
}

pipeline by_hand {
  task t {
    run command ["true"]
  }
}
"#;

fn report(args: &[&str]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), FLOW).expect("write");
    let out = Command::cargo_bin("flowc")
        .expect("binary builds")
        .current_dir(dir.path())
        .arg("report")
        .args(args)
        .arg("p.flow")
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_report_says_the_schedule_in_words_with_its_first_intervals() {
    let (code, text, _) = report(&[]);
    assert_eq!(code, Some(0));
    assert!(
        text.contains(
            "pipeline nightly (p.flow)\n  schedule `2 0 * * *` (Europe/Berlin): At 00:02\n  first intervals: 2026-03-28 00:02 → 2026-03-29 00:02, 2026-03-29 00:02 → 2026-03-30 00:02, 2026-03-30 00:02 → 2026-03-31 00:02\n"
        ),
        "{text}"
    );
    // A manual pipeline has no schedule line.
    assert!(text.contains("pipeline by_hand (p.flow)\n  task"), "{text}");
    // The same twice: nothing depends on the clock.
    assert_eq!(report(&[]).1, text);
}

#[test]
fn the_json_report_has_the_schedule_with_offsets_across_a_clock_change() {
    let (code, text, _) = report(&["--output-format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        v["pipelines"][0]["schedule"],
        serde_json::json!({
            "cron": "2 0 * * *",
            "words": "At 00:02",
            "timezone": "Europe/Berlin",
            "from": "start",
            "intervals": [
                {"start": "2026-03-28T00:02:00+01:00", "end": "2026-03-29T00:02:00+01:00"},
                {"start": "2026-03-29T00:02:00+01:00", "end": "2026-03-30T00:02:00+02:00"},
                {"start": "2026-03-30T00:02:00+02:00", "end": "2026-03-31T00:02:00+02:00"}
            ]
        })
    );
    assert!(v["pipelines"][1]["schedule"].is_null());
}

#[test]
fn now_shows_the_next_intervals_and_a_bad_instant_is_refused() {
    let (code, text, _) = report(&["--now", "2026-06-01T12:00:00Z"]);
    assert_eq!(code, Some(0));
    assert!(
        text.contains("  next intervals: 2026-06-02 00:02 → 2026-06-03 00:02, 2026-06-03 00:02 → 2026-06-04 00:02, 2026-06-04 00:02 → 2026-06-05 00:02\n"),
        "{text}"
    );
    // `--now now` reads the clock: intervals after today, whatever today is.
    let (code, text, _) = report(&["--now", "now"]);
    assert_eq!(code, Some(0));
    assert!(text.contains("  next intervals: "), "{text}");
    let (code, _, err) = report(&["--now", "yesterday"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("`--now yesterday` is not an instant"), "{err}");
}
