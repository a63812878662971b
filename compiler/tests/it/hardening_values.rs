//! Values the systems would refuse, refused by `check` (issue 27, items 16
//! and 17), through the real binary, with near misses.

/// `flowc check --output-format concise p.flow` in a fresh project holding
/// `text`: the FL002 lines.
fn fl002(text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), text).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["check", "--output-format", "concise", "p.flow"])
        .output()
        .expect("flowc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" FL002 "))
        .map(str::to_owned)
        .collect()
}

fn memory(q: &str) -> String {
    format!(
        "pipeline p {{\n  image \"busybox\"\n\n  task t {{\n    resources {{ cpu \"500m\" memory \"{q}\" }}\n    run command [\"true\"]\n  }}\n}}\n"
    )
}

#[test]
fn memory_is_a_kubernetes_quantity_of_whole_bytes() {
    for bad in [
        "1e-3",
        "0.001",
        "0.0000000001",
        "1m",
        "0.5",
        "1.0001k",
        "1n",
        "-1Gi",
        "1e1.5",
        "1gb",
        ".",
    ] {
        let found = fl002(&memory(bad));
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        assert!(found[0].contains("memory"), "{bad}: {found:?}");
    }
    for ok in [
        "1Gi", "512Mi", "1.5Ki", "1e3", "2.5k", "100e-2", ".5Ki", "1.", "+1G",
    ] {
        assert!(fl002(&memory(ok)).is_empty(), "{ok}");
    }
}

fn topic(name: &str) -> String {
    format!(
        "source events: kafka_topic {{\n  topic \"{name}\"\n}}\n\nsink copy: iceberg_table {{\n  table \"lake.copy\"\n}}\n\npipeline p {{\n  task t {{\n    read  events\n    write copy append\n    run command [\"true\"]\n  }}\n}}\n"
    )
}

fn iceberg(table: &str) -> String {
    topic("events").replace("\"lake.copy\"", &format!("\"{table}\""))
}

#[test]
fn kafka_topics_and_iceberg_tables_are_named_as_the_systems_require() {
    let long = "t".repeat(250);
    for bad in [
        "",
        ".",
        "..",
        "orders events",
        "orders/x",
        "ordres:v1",
        "é",
        &long,
    ] {
        let found = fl002(&topic(bad));
        assert_eq!(found.len(), 1, "{bad:?}: {found:?}");
        // Worded by Kafka's rule, `..` too (it was worded as a path segment that leaves a
        // folder: a topic is no path).
        assert!(
            found[0].contains("kafka_topic") && !found[0].contains("folder"),
            "{bad:?}: {found:?}"
        );
    }
    let longest = "t".repeat(249);
    for ok in ["orders", "orders.v1", "a-b_c.D9", "...", ".x", &longest] {
        assert!(fl002(&topic(ok)).is_empty(), "{ok:?}");
    }
    for bad in [
        "",
        "copy",
        "lake.",
        ".copy",
        "a.b.c",
        "lake..copy",
        "lake.co py",
        "lake/x.copy",
        "..",
        "lake.copy\\t",
    ] {
        let found = fl002(&iceberg(bad));
        assert_eq!(found.len(), 1, "{bad:?}: {found:?}");
        assert!(
            found[0].contains("iceberg_table") && !found[0].contains("folder"),
            "{bad:?}: {found:?}"
        );
    }
    for ok in ["lake.copy", "Lake_1.copy-2", "l.c"] {
        assert!(fl002(&iceberg(ok)).is_empty(), "{ok:?}");
    }
}

/// A transactional Kafka write whose sink sets `transaction_timeout VALUE`.
fn txn_timeout(value: &str) -> String {
    format!(
        "source events: kafka_topic {{\n  topic \"in\"\n  pin offsets\n  mutable\n  identity id\n}}\n\nsink copy: kafka_topic {{\n  topic \"out\"\n  transaction_timeout {value}\n}}\n\npipeline p {{\n  task t {{\n    read  events commit in_transaction\n    write copy transactional\n    run command [\"true\"]\n  }}\n}}\n"
    )
}

#[test]
fn a_kafka_transaction_timeout_is_one_the_client_takes() {
    for bad in ["0s", "0m", "25d", "24d21h"] {
        let found = fl002(&txn_timeout(bad));
        assert_eq!(found.len(), 1, "{bad:?}: {found:?}");
        assert!(
            found[0].contains("`transaction_timeout` of kind `kafka_topic` cannot be")
                && found[0].contains(bad),
            "{bad:?}: {found:?}"
        );
    }
    for ok in ["1s", "90s", "15m", "24d"] {
        assert!(fl002(&txn_timeout(ok)).is_empty(), "{ok:?}");
    }
    // A duration: a bare number is FL002 (a string is FL006, a wrong type).
    let bare = fl002(&txn_timeout("60"));
    assert!(
        bare.len() == 1 && bare[0].contains("bare number"),
        "{bare:?}"
    );
    // The value reaches the task's spec in seconds, for the runtime's producer.
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), txn_timeout("5m")).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .args(["build", "--target", "ir", "--out", "ir", "p.flow"])
        .output()
        .expect("flowc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ir = std::fs::read_to_string(dir.path().join("ir/p.ir.json")).expect("the IR");
    assert!(ir.contains("\"transaction_timeout\": 300"), "{ir}");
}

/// Two tasks writing `table` through declarations `a` and `b`, unordered;
/// `b` writes `table_b` to its `secret_b`.
fn two_writers(table_b: &str, secret_b: &str) -> String {
    format!(
        "sink a: postgres_table {{\n  table        \"analytics.orders\"\n  primary_key  order_id\n  secret       \"wh\"\n}}\n\nsink b: postgres_table {{\n  table        \"{table_b}\"\n  primary_key  order_id\n  secret       \"{secret_b}\"\n}}\n\npipeline p {{\n  image \"busybox\"\n\n  task one {{\n    write  a upsert\n    key    output.order_id\n    run command [\"true\"]\n  }}\n\n  task two {{\n    write  b upsert\n    key    output.order_id\n    run command [\"true\"]\n  }}\n}}\n"
    )
}

fn fl207(text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), text).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["check", "--output-format", "concise", "p.flow"])
        .output()
        .expect("flowc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" FL207 "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn fl207_keys_writers_on_the_system_not_the_declaration_name() {
    let found = fl207(&two_writers("analytics.orders", "wh"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`a` and `b` (one system under two names)"),
        "{found:?}"
    );
    // Near misses: another table, or the same name in another database.
    assert!(fl207(&two_writers("analytics.refunds", "wh")).is_empty());
    assert!(fl207(&two_writers("analytics.orders", "other-db")).is_empty());
}

/// The Argo mutexes of `text` built in a fresh project, sorted and deduplicated.
fn argo_mutexes(text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), text).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .args(["build", "--target", "argo", "--out", "out", "p.flow"])
        .output()
        .expect("flowc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let mut names = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(dir.path().join("out")).expect("out") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).unwrap_or_default();
        for line in text.lines() {
            if let Some(name) = line.trim().strip_prefix("- name: \"flowc-sink-") {
                // The name's closing quote, then a comment naming the sinks.
                names.insert(name.split('"').next().unwrap_or_default().to_owned());
            }
        }
    }
    names.into_iter().collect()
}

#[test]
fn argo_mutexes_are_keyed_on_the_system() {
    let ordered = |table: &str, secret: &str| {
        two_writers(table, secret).replace("  task two {\n", "  task two {\n    after  one\n")
    };
    assert_eq!(argo_mutexes(&ordered("analytics.orders", "wh")).len(), 1);
    assert_eq!(argo_mutexes(&ordered("analytics.refunds", "wh")).len(), 2);
    assert_eq!(
        argo_mutexes(&ordered("analytics.orders", "other-db")).len(),
        2
    );
}
