//! FL010 through the real binary (issue 27, item 6): besides a URL's
//! password, a credential in a URL's query, an incoming webhook URL (its own
//! token), an `env` variable named as a credential, a `run` argument and an
//! annotation are found; near misses beside each stay quiet.

fn concise(text: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), text).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["check", "--output-format", "concise", "p.flow"])
        .output()
        .expect("flowc runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn pipeline(url: &str, annotation: &str, env: &str, arg: &str) -> String {
    format!(
        "sink warehouse: postgres_table {{\n  table        \"analytics.orders\"\n  primary_key  order_id\n  secret       \"warehouse-url\"\n}}\n\neffect notify: webhook {{\n  url \"{url}\"\n}}\n\npipeline orders_daily {{\n  schedule  \"@daily\"\n  start     2026-01-01\n  image     \"ghcr.io/acme/orders:1.4\"\n  annotations {{\n    \"acme.io/db\" \"{annotation}\"\n  }}\n\n  task load_orders {{\n    write  warehouse upsert\n    key    output.order_id\n    emit   notify via outbox\n    env {{\n      {env}\n      LOG_LEVEL \"info\"\n    }}\n    run command [\"python\", \"-m\", \"orders.load\", \"{arg}\"]\n  }}\n}}\n"
    )
}

#[test]
fn fl010_finds_credentials_beyond_a_urls_password() {
    let hot = concise(&pipeline(
        "https://hooks.slack.com/services/T000/B000/XXXXSECRET",
        "mysql://db/x?password=hunter2",
        "PGPASSWORD \"hunter2\"\n      FLOW_TOKEN_API \"abc\"",
        "postgres://u:pw@db/x",
    ));
    let fl010: Vec<&str> = hot.lines().filter(|l| l.contains(" FL010 ")).collect();
    assert_eq!(fl010.len(), 5, "{hot}");
    for what in [
        "parameter `url` of effect `notify` holds an incoming webhook URL",
        "annotation `acme.io/db` of pipeline `orders_daily` holds a URL with a credential in its query",
        "`env` variable `PGPASSWORD`",
        "`env` variable `FLOW_TOKEN_API`",
        "an argument of the `run` command of task `load_orders` holds a URL with a password",
    ] {
        assert!(fl010.iter().any(|l| l.contains(what)), "{what}:\n{hot}");
    }
    // The near misses: a webhook of another host, a query with no secret,
    // a variable whose name says nothing of a secret, a URL with a user only.
    let cold = concise(&pipeline(
        "https://hooks.example.com/services/T000",
        "mysql://db/x?tokens_left=3&password=",
        "PGAPPNAME \"loader\"",
        "postgres://u@db/x",
    ));
    assert!(!cold.contains("FL010"), "{cold}");
}
