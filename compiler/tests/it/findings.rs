//! Findings checked for what they say and where they point: the code, the
//! exact text they underline, the message and the help, for cases where an
//! earlier build got one of these wrong (a follow-on error, a span on the
//! wrong token, a library's wording, a help that suggested invalid code).
//! Expectations come from docs/reference/language.md and docs/reference/guarantees.md.

use flowc::check::{self, Input};
use flowc::diagnostic::Diagnostic;

struct Found {
    text: String,
    diags: Vec<Diagnostic>,
}

impl Found {
    /// The unsuppressed findings with `code`.
    fn with(&self, code: &str) -> Vec<&Diagnostic> {
        self.diags
            .iter()
            .filter(|d| d.code == code && d.suppressed.is_none())
            .collect()
    }

    /// The text a finding's primary span underlines.
    fn under(&self, d: &Diagnostic) -> &str {
        &self.text[d.span.start..d.span.end]
    }

    fn codes(&self) -> Vec<&str> {
        self.diags.iter().map(|d| d.code.as_str()).collect()
    }
}

fn check(text: &str) -> Found {
    let o = check_files(&[("t.flow", text)], &[]);
    Found {
        text: text.to_owned(),
        diags: o.diagnostics,
    }
}

/// Check `files` together (each given on the command line), with `imports`
/// served to `use` from memory.
fn check_files(files: &[(&str, &str)], imports: &[(&str, &str)]) -> check::Outcome {
    let inputs = files
        .iter()
        .map(|(path, text)| Input {
            path: (*path).into(),
            key: (*path).into(),
            bytes: text.as_bytes().to_vec(),
        })
        .collect();
    let loader = flowc::invariants::MemLoader::new(
        imports
            .iter()
            .map(|(path, text)| ((*path).to_owned(), text.as_bytes().to_vec()))
            .collect(),
    );
    check::check(inputs, &loader)
}

fn one<'a>(found: &'a Found, code: &str) -> &'a Diagnostic {
    let all = found.with(code);
    assert_eq!(all.len(), 1, "one {code} in {:?}", found.codes());
    all[0]
}

const PIPELINE: &str = "pipeline p {\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n  task t {\n    run command [\"x\"]\n  }\n}\n";

fn with_schedule(schedule: &str) -> String {
    PIPELINE.replace("@daily", schedule)
}

#[test]
fn cron_problems_are_said_in_flowcs_words_naming_the_field() {
    for (schedule, says) in [
        ("61 2 * * *", "minute 61 is out of range 0 to 59"),
        ("0 24 * * *", "hour 24 is out of range 0 to 23"),
        ("0 0 32 * *", "day of month 32 is out of range 1 to 31"),
        ("0 0 * 0 *", "month 0 is out of range 1 to 12"),
        ("0 0 * * 9", "day of week 9 is out of range 0 to 7"),
        ("0 2 * * */0", "the day of week step cannot be 0"),
        ("5-1 * * * *", "the minute range `5-1` runs backwards"),
    ] {
        let f = check(&with_schedule(schedule));
        let d = one(&f, "FL002");
        assert!(d.message.contains(says), "{schedule}: {}", d.message);
        assert_eq!(f.under(d), format!("\"{schedule}\""));
        // No library text: its messages are capitalised and end with a period.
        assert!(!d.message.ends_with('.'), "{}", d.message);
        assert!(!d.message.contains("Component error"), "{}", d.message);
    }
    for schedule in ["*/15 9-17 * JAN-MAR mon-fri", "0 0 1,15 * *", "0 0 * * 7"] {
        assert!(
            check(&with_schedule(schedule)).with("FL002").is_empty(),
            "{schedule}"
        );
    }
}

#[test]
fn a_number_of_a_duration_is_an_integer_of_the_language() {
    // docs/reference/language.md: an integer is 0 to 4294967295; anything else starting
    // with a digit is FL002. That holds for the numbers of a duration too.
    for (timeout, bad) in [
        ("99999999999m", true),
        ("4294967296s", true),
        ("4294967295s", false),
    ] {
        let f = check(&PIPELINE.replace("timeout 30m", &format!("timeout {timeout}")));
        let found = f.with("FL002");
        if bad {
            assert_eq!(found.len(), 1, "{timeout}: {:?}", f.codes());
            assert_eq!(f.under(found[0]), timeout);
        } else {
            assert!(found.is_empty(), "{timeout}: {:?}", f.codes());
        }
    }
}

#[test]
fn every_bad_placeholder_of_a_string_is_reported_where_it_is() {
    let text = "source src: files {\n  path \"{Interval.Start}/{interval.START}/{_a._b}/{interval.end}\"\n}\n";
    let f = check(text);
    let under: Vec<&str> = f.with("FL002").iter().map(|d| f.under(d)).collect();
    assert_eq!(under, ["{Interval.Start}", "{interval.START}", "{_a._b}"]);
}

#[test]
fn a_bad_unicode_escape_is_underlined_whole() {
    for escape in [r"\u{D800}", r"\u{110000}", r"\u{}", r"\u{0000041}"] {
        let text = format!("source src: files {{\n  path \"a{escape}b\"\n}}\n");
        let f = check(&text);
        let d = one(&f, "FL001");
        assert_eq!(f.under(d), escape, "{}", d.message);
    }
    // Without a closing brace only `\u` is underlined.
    let f = check("source src: files {\n  path \"a\\uzz\"\n}\n");
    assert_eq!(f.under(one(&f, "FL001")), r"\u");
}

#[test]
fn a_declaration_with_an_unknown_kind_is_one_finding_not_two() {
    let text = "source src: fils {\n  path \"a\"\n}\npipeline p {\n  task t {\n    read src\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    let d = one(&f, "FL702");
    assert_eq!(f.under(d), "fils");
    assert!(d.message.contains("did you mean `files`"), "{}", d.message);
    // A name that is declared nowhere is still unknown.
    let f = check(&text.replace("read src", "read srcc"));
    let under: Vec<&str> = f.with("FL702").iter().map(|d| f.under(d)).collect();
    assert_eq!(under, ["fils", "srcc"]);
}

#[test]
fn the_attempt_product_is_exact_even_at_the_largest_integers() {
    let text = "pipeline p {\n  retries 4294967295\n  timeout 5m\n  task t {\n    internal_retries 4294967295\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    let d = one(&f, "FL501");
    assert!(
        d.message
            .contains("4294967296 x 4294967296 = 18446744073709551616 attempts"),
        "{}",
        d.message
    );
}

/// docs/reference/guarantees.md, FL900: one label per failing clause, at the declaration
/// responsible, also when the only clause missing is the lease.
#[test]
fn fl900_labels_the_missing_lease_and_a_mode_that_cannot_be_exactly_once() {
    let text = "source src: delta_table {\n  location \"a\"\n  pin version\n}\nsink dst: delta_table {\n  location \"b\"\n}\npipeline p {\n  schedule \"@daily\"\n  start 2026-01-01\n  task t {\n    read src\n    write dst conditional_commit require exactly_once\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    let d = one(&f, "FL900");
    let lease = d
        .labels
        .iter()
        .find(|l| l.message.ends_with("(lease)"))
        .expect("a label for the lease");
    assert_eq!(&f.text[lease.span.start..lease.span.end], "t");
    // With a timeout the requirement holds.
    let f = check(&text.replace(
        "  start 2026-01-01\n",
        "  start 2026-01-01\n  timeout 30m\n",
    ));
    assert!(f.with("FL900").is_empty(), "{:?}", f.codes());
}

/// docs/reference/language.md: `(a)` is the same as `a`, for a bound partition term too.
#[test]
fn a_parenthesised_partition_term_is_the_term() {
    let text = "sink dst: postgres_table {\n  table \"b\"\n  primary_key day\n}\npipeline p {\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n  task t {\n    write dst replace partition day = interval.start\n    run command [\"x\"]\n  }\n}\n";
    let plain = check(text);
    assert!(plain.diags.is_empty(), "{:?}", plain.codes());
    for form in [
        "(day = interval.start)",
        "((day = interval.start))",
        "( day = (interval.start) )",
    ] {
        let f = check(&text.replace("day = interval.start", form));
        assert!(f.diags.is_empty(), "{form}: {:?}", f.codes());
        // The same syntax tree as without the parentheses.
        assert_eq!(
            flowc::invariants::tree(&f.text),
            flowc::invariants::tree(text),
            "{form}"
        );
    }
}

#[test]
fn a_finding_about_a_bound_key_term_underlines_the_term() {
    let text = "source src: files {\n  path \"in/{interval.start}/\"\n  immutable\n  fields [id, v]\n}\nsink dst: postgres_table {\n  table \"b\"\n  primary_key id\n}\npipeline p {\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n  task t {\n    read src\n    write dst upsert key (id = input.zz)\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    assert_eq!(f.under(one(&f, "FL103")), "input.zz");
    let f = check(&text.replace("input.zz", "attempt.id"));
    assert_eq!(f.under(one(&f, "FL101")), "attempt.id");
}

#[test]
fn messages_use_the_right_article_and_name_both_halves_of_one_setting() {
    let f = check("effect hook: files {\n  path \"a\"\n}\n");
    let d = one(&f, "FL009");
    assert!(d.message.ends_with("cannot be an effect"), "{}", d.message);
    let f = check("source s: files {\n  path \"a\"\n  immutable\n  mutable\n}\n");
    let d = one(&f, "FL007");
    assert_eq!(f.under(d), "mutable");
    assert!(
        d.message
            .contains("`mutable` and `immutable` are one setting"),
        "{}",
        d.message
    );
    let f = check(&PIPELINE.replace("timeout 30m", "nonsense 3"));
    let help = one(&f, "FL003").help.clone().unwrap_or_default();
    assert!(help.contains("`allow"), "{help}");
}

/// A help says what to write instead, and what it suggests is valid.
#[test]
fn a_key_term_written_without_its_call_or_part_gets_a_valid_suggestion() {
    let text = "source src: files {\n  path \"in/{interval.start}/\"\n  immutable\n  fields [id, v]\n}\nsink dst: postgres_table {\n  table \"b\"\n  primary_key id\n}\npipeline p {\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n  task t {\n    read src\n    write dst upsert key TERM\n    run command [\"x\"]\n  }\n}\n";
    for (term, suggested) in [
        ("input", "hash(input)"),
        ("output", "hash(output)"),
        ("now", "now()"),
        ("uuid", "uuid()"),
        ("hash", "hash(input)"),
        ("interval", "interval.start"),
        ("attempt", "attempt.id"),
        ("id", "input.id"),
    ] {
        let f = check(&text.replace("TERM", term));
        let d = one(&f, "FL001");
        assert_eq!(f.under(d), term);
        let said = format!("{} {}", d.message, d.help.clone().unwrap_or_default());
        assert!(said.contains(&format!("`{suggested}`")), "{term}: {said}");
        // The suggestion, written in, is a key term.
        let fixed = check(&text.replace("TERM", suggested));
        assert!(
            fixed.with("FL001").is_empty(),
            "{suggested}: {:?}",
            fixed.codes()
        );
    }
}

/// A syntax error lists only what could really come next: inside a block the
/// file cannot end, mid-line no statement starts, and a `write`'s clauses
/// include `key`.
#[test]
fn syntax_errors_list_only_what_could_come_next() {
    for (statement, expected) in [
        ("write dst", "expected a write mode, found end of line"),
        (
            "write dst upsert extra",
            "expected `}`, `key`, `require`, `newest by` or `txn`, found `extra`",
        ),
        ("key", "expected a key term, found end of line"),
    ] {
        let text = format!(
            "pipeline p {{\n  task t {{\n    {statement}\n    run command [\"x\"]\n  }}\n}}\n"
        );
        let f = check(&text);
        let d = one(&f, "FL001");
        assert_eq!(d.message, expected, "{statement}");
    }
    // At the top level the file may end.
    let f = check("pipeline p {\n}\n}\n");
    let d = one(&f, "FL001");
    assert!(d.message.contains("end of file"), "{}", d.message);
}

/// A pipeline declared twice is FL703 and only that: the declarations its
/// tasks use are not also FL704.
#[test]
fn a_duplicate_pipeline_is_one_finding() {
    let file = |suffix: &str| {
        format!("source src_{suffix}: files {{\n  path \"in/\"\n  immutable\n  identity id\n}}\nsink out_{suffix}: sqlite_table {{\n  table \"o\"\n  primary_key id\n}}\npipeline p {{\n  task t {{\n    read src_{suffix}\n    key input.id\n    write out_{suffix} upsert\n    run command [\"x\"]\n  }}\n}}\n")
    };
    let o = check_files(&[("a.flow", &file("a")), ("b.flow", &file("b"))], &[]);
    let codes: Vec<&str> = o.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert!(codes.contains(&"FL703"), "{codes:?}");
    assert!(!codes.contains(&"FL704"), "{codes:?}");
    // A declaration nobody names is still FL704.
    let c = format!(
        "{}sink spare: sqlite_table {{\n  table \"s\"\n}}\n",
        file("c")
    );
    let o = check_files(&[("c.flow", &c), ("d.flow", &file("d"))], &[]);
    let fl704: Vec<&str> = o
        .diagnostics
        .iter()
        .filter(|d| d.code == "FL704")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(fl704.len(), 1, "{fl704:?}");
    assert!(fl704[0].contains("`spare`"), "{fl704:?}");
}

/// A placeholder in a string with escapes is underlined exactly, not the
/// whole string.
#[test]
fn a_bad_placeholder_after_escapes_is_underlined_exactly() {
    for body in [
        r"\t{interval.strat}",
        r#"a\"\u{1F600}\n{interval.strat}"#,
        r"\u{41}\\{interval.strat}/x",
        "é😀/{interval.strat}",
    ] {
        let text = format!("source src: files {{\n  path \"{body}\"\n}}\n");
        let f = check(&text);
        let d = one(&f, "FL002");
        assert_eq!(f.under(d), "{interval.strat}", "{body}");
    }
}

/// A `commit` set on the source is found at the read of each task (where
/// that task's `allow` reaches), with the source's `commit` line labelled.
#[test]
fn a_commit_mode_set_on_the_source_is_found_at_the_read() {
    let text = "source k: kafka_topic {\n  topic \"events\"\n  commit auto\n  identity id\n}\nsink s: postgres_table {\n  table \"t\"\n  primary_key id\n}\npipeline p {\n  require at_most_once\n  task t {\n    read k pinned offsets\n    key input.id\n    write s upsert\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    let d = one(&f, "FL301");
    assert_eq!(f.under(d), "read k pinned offsets");
    let label = &d.labels.last().expect("a label").span;
    assert_eq!(&f.text[label.start..label.end], "commit auto");
    // The task's `allow` suppresses it, and is used.
    let allowed = check(&text.replace(
        "    run command",
        "    allow FL301 because \"loss is acceptable for this feed\"\n    run command",
    ));
    assert!(allowed.with("FL301").is_empty(), "{:?}", allowed.codes());
    assert!(allowed.with("FL705").is_empty(), "{:?}", allowed.codes());
    // The same for `before_write` (FL302) and `in_transaction` (FL303).
    let f = check(&text.replace("commit auto", "commit before_write"));
    assert_eq!(f.under(one(&f, "FL302")), "read k pinned offsets");
    let f = check(&text.replace("commit auto", "commit in_transaction"));
    assert_eq!(f.under(one(&f, "FL303")), "read k pinned offsets");
}

/// When a name does not resolve the rules do not run on the file, so an
/// `allow` cannot be judged unused (FL705) there.
#[test]
fn no_fl705_in_a_file_whose_rules_did_not_run() {
    let text = "sink x: files {\n  path \"x\"\n}\nsink unused: no_such_kind {\n}\npipeline p {\n  require at_least_once\n  task w {\n    write x append\n    allow FL202 because \"duplicates are fine downstream\"\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    assert_eq!(f.with("FL702").len(), 1, "{:?}", f.codes());
    assert!(f.with("FL705").is_empty(), "{:?}", f.codes());
    // Once the file resolves, the allow is used.
    let f = check(&text.replace("sink unused: no_such_kind {\n}\n", ""));
    assert!(f.with("FL705").is_empty(), "{:?}", f.codes());
    assert!(f
        .diags
        .iter()
        .any(|d| d.code == "FL202" && d.suppressed.is_some()));
}

/// A repeated task, and a declaration that clashes with an imported one,
/// are each one finding (FL703): what they name is not also unused (FL704).
#[test]
fn a_repeated_name_is_one_finding_not_also_an_unused_declaration() {
    let text = "sink s1: files {\n  path \"a\"\n}\nsink s2: files {\n  path \"b\"\n}\npipeline p {\n  task t {\n    write s1 append\n    run command [\"x\"]\n  }\n  task t {\n    write s2 append\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    assert_eq!(f.with("FL703").len(), 1, "{:?}", f.codes());
    assert!(f.with("FL704").is_empty(), "{:?}", f.codes());

    let lib = "sink s: files {\n  path \"lib\"\n}\n";
    let main = "use \"lib.flow\"\nsink s: files {\n  path \"main\"\n}\npipeline p {\n  require at_least_once\n  task t {\n    write s append\n    allow FL202 because \"ok\"\n    run command [\"x\"]\n  }\n}\n";
    let o = check_files(&[("main.flow", main)], &[("lib.flow", lib)]);
    let codes: Vec<&str> = o.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert!(codes.contains(&"FL703"), "{codes:?}");
    assert!(!codes.contains(&"FL704"), "{codes:?}");
}

/// docs/reference/guarantees.md: rules fire independently; FL703 replaces none. A pipeline
/// whose name repeats one in another file is still checked and reported.
#[test]
fn a_repeated_pipeline_is_still_checked_and_reported() {
    let a = "pipeline p {\n  task t {\n    run command [\"x\"]\n  }\n}\n";
    let b = "sink s: files {\n  path \"b\"\n}\npipeline p {\n  task u {\n    write s append\n    run command [\"x\"]\n  }\n}\n";
    let o = check_files(&[("a.flow", a), ("b.flow", b)], &[]);
    let codes: Vec<&str> = o.diagnostics.iter().map(|d| d.code.as_str()).collect();
    for code in ["FL703", "FL202", "FL900"] {
        assert!(codes.contains(&code), "{code} in {codes:?}");
    }
    let report: serde_json::Value =
        serde_json::from_str(&flowc::report::json(&o)).expect("report json");
    let files: Vec<&str> = report["pipelines"]
        .as_array()
        .expect("pipelines")
        .iter()
        .map(|p| p["file"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(files, ["a.flow", "b.flow"]);
}

/// A kind's `commits` line says which commit modes it offers: another is
/// FL003 (as `commit` on a kind without offsets is), and it does not count
/// towards `exactly_once` (a).
#[test]
fn a_commit_mode_the_kind_does_not_offer_is_fl003_and_not_exactly_once() {
    let text = "kind queue {\n  roles        source, sink\n  pins         offsets\n  offsets\n  commits      after_write\n  writes       transactional\n  transactional\n  coordinator  \"q\"\n}\nsource s: queue {\n}\nsink o: queue {\n}\npipeline p {\n  schedule \"@daily\"\n  start 2026-01-01\n  task t {\n    read s pinned offsets commit in_transaction\n    write o transactional\n    run command [\"x\"]\n  }\n}\n";
    let f = check(text);
    let d = one(&f, "FL003");
    assert_eq!(f.under(d), "in_transaction");
    assert!(
        d.message.contains("does not offer `commit in_transaction`"),
        "{}",
        d.message
    );
    assert_eq!(f.with("FL303").len(), 1, "{:?}", f.codes());
    // Offered, it is exactly-once.
    let f = check(&text.replace(
        "commits      after_write",
        "commits      after_write, in_transaction",
    ));
    assert!(f.diags.is_empty(), "{:?}", f.codes());
    // On the source, too.
    let f = check(
        &text
            .replace(
                "commits      after_write",
                "commits      after_write, in_transaction",
            )
            .replace(
                "source s: queue {\n}",
                "source s: queue {\n  commit auto\n}",
            ),
    );
    let d = one(&f, "FL003");
    assert_eq!(f.under(d), "auto");
}

/// A kind declared again in a file that imports it is FL703 in that file,
/// the importing one, as for sources, sinks and effects; the imported file
/// is fine on its own and gets no finding.
#[test]
fn a_kind_clash_with_an_import_is_found_in_the_importing_file() {
    let lib = "kind k {\n  roles source\n  pins listing\n}\n";
    let main = "use \"lib.flow\"\nkind k {\n  roles source\n  pins listing\n}\n";
    let o = check_files(&[("main.flow", main)], &[("lib.flow", lib)]);
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "FL703")
        .expect("FL703");
    assert_eq!(o.sources.path(d.file), "main.flow");
    assert_eq!(&o.sources.text(d.file)[d.span.start..d.span.end], "k");
    assert!(d
        .labels
        .iter()
        .any(|l| o.sources.path(l.file) == "lib.flow" && l.message == "first declared here"));
}

/// An unterminated string is said as such, underlined from its opening
/// quote (as `flowc fmt` says it); every syntax error has a help line.
#[test]
fn an_unterminated_string_and_a_missing_block_are_said_plainly() {
    for (line, under) in [
        ("path \"x", "\"x"),
        ("path \"abc\\\"", "\"abc\\\""),
        ("path [\"a\", \"b]", "\"b]"),
    ] {
        let f = check(&format!("source s: files {{\n  {line}\n}}\n"));
        let d = one(&f, "FL001");
        assert!(
            d.message.starts_with("unterminated string"),
            "{}",
            d.message
        );
        assert_eq!(f.under(d), under);
    }
    // A `#` after a closed string starts a comment, quotes and all.
    assert!(check("source s: files {\n  path \"a\" # \"x\n}\n")
        .diags
        .is_empty());
    for text in ["pipeline p\n", "source s: files\n", "kind k\n"] {
        let f = check(text);
        let d = one(&f, "FL001");
        assert!(
            d.help.as_deref().is_some_and(|h| h.contains('{')),
            "{text}: {d:?}"
        );
    }
}

/// A `timeout` with a bad value is FL002, not also "no lease" (FL503).
#[test]
fn a_bad_timeout_is_one_finding() {
    let text = PIPELINE
        .replace("timeout 30m", "timeout 18446744073709551615s")
        .replace("    run command", "    retries 2\n    run command");
    let f = check(&text);
    assert_eq!(f.with("FL002").len(), 1, "{:?}", f.codes());
    assert!(f.with("FL503").is_empty(), "{:?}", f.codes());
}

/// After a clause word the expected word is named by its kind, not "a name".
#[test]
fn after_a_clause_word_the_expected_word_is_named() {
    for (statement, says) in [
        ("write dst upsert require", "expected a guarantee"),
        ("read src pinned", "expected a pin"),
        ("read src commit", "expected a commit mode"),
        ("allow", "expected a rule code"),
    ] {
        let text = format!(
            "pipeline p {{\n  task t {{\n    {statement}\n    run command [\"x\"]\n  }}\n}}\n"
        );
        let f = check(&text);
        let d = one(&f, "FL001");
        assert!(d.message.starts_with(says), "{statement}: {}", d.message);
        assert!(!d.message.contains("a name"), "{statement}: {}", d.message);
    }
    let f = check("pipeline p {\n  task t {\n    run command [\"a\"] image \"x\"\n  }\n}\n");
    let help = one(&f, "FL001").help.clone().unwrap_or_default();
    assert!(
        help.contains("run image \\\"REF\\\" command")
            || help.contains("run image \"REF\" command"),
        "{help}"
    );
}

/// A key term in other case, or cut short, gets the term it most likely is.
#[test]
fn a_miscased_or_shortened_key_term_gets_its_suggestion() {
    for (term, meant) in [
        ("Input.id", "input.id"),
        ("INTERVAL.START", "interval.start"),
        ("attempt.num", "attempt.number"),
        ("run.ID", "run.id"),
    ] {
        let text = format!(
            "pipeline p {{\n  task t {{\n    key {term}\n    run command [\"x\"]\n  }}\n}}\n"
        );
        let f = check(&text);
        let d = one(&f, "FL001");
        assert!(
            d.message.ends_with(&format!("did you mean `{meant}`?")),
            "{term}: {}",
            d.message
        );
    }
}

/// A keyword written in other case, or misspelled, at the start of a line
/// gets the keyword as help.
#[test]
fn a_miscased_or_misspelled_item_keyword_gets_the_keyword() {
    for text in [
        "Pipeline q {\n}\n",
        "PIPELINE q {\n}\n",
        "pipline q {\n}\n",
        "source s: files {\n  path \"x\"\n}\nSink o: files {\n  path \"y\"\n}\n",
    ] {
        let f = check(text);
        let help = one(&f, "FL001").help.clone().unwrap_or_default();
        assert!(help.starts_with("did you mean `"), "{text}: {help}");
    }
}

/// FL404's help offers `via idempotency_key` only for a kind that can
/// deduplicate on one: for a `slack_message` it would lead straight into FL403.
#[test]
fn outbox_without_sink_offers_only_what_the_kind_supports() {
    let text = |kind: &str, params: &str| {
        format!(
            "source s: files {{\n  path \"in/{{interval.start}}/\"\n  immutable\n  identity id\n}}\n\
             sink f: files {{\n  path \"out/{{interval.start}}/\"\n}}\n\
             effect e: {kind} {{\n  {params}\n}}\n\
             pipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  task t {{\n    read s pinned listing\n    \
             write f overwrite\n    emit e via outbox\n    run command [\"true\"]\n  }}\n}}\n"
        )
    };
    let slack = check(&text("slack_message", "channel \"#x\""));
    let help = one(&slack, "FL404").help.clone().unwrap_or_default();
    assert!(!help.contains("idempotency_key"), "{help}");
    assert!(help.contains("transactional"), "{help}");
    // Near miss: a webhook can deduplicate on a key, so the help offers it.
    let hook = check(&text("webhook", "url \"https://example.com/h\""));
    let help = one(&hook, "FL404").help.clone().unwrap_or_default();
    assert!(help.contains("via idempotency_key"), "{help}");
}
