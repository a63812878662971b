//! FL010 `credential-in-url`: a URL with a password written in the `.flow`
//! file, in an `env` value or a declaration's parameter. The file is
//! committed and its strings reach the generated DAGs and workflows, so the
//! password would be in both; a declaration's `secret "NAME"` keeps it in
//! the platform's secret store instead.

use super::{Ctx, Rule};
use crate::analyze::model::Loc;
use crate::diagnostic::Diagnostic;
use crate::vocab::ParamValue;

pub const RULE: Rule = Rule {
    code: crate::diagnostic::Code::FL010,
    check: Some(check),
};

/// Whether `s` holds a URL whose user part carries a password
/// (`scheme://user:password@host`): the byte range of the password, if so.
pub fn password_in_url(s: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(at) = s[from..].find("://") {
        let start = from + at + 3;
        let scheme_ok = s[..from + at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        let authority_end = s[start..]
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace())
            .map_or(s.len(), |e| start + e);
        let authority = &s[start..authority_end];
        if let (true, Some(user_end)) = (scheme_ok, authority.rfind('@')) {
            let user = &authority[..user_end];
            if let Some(colon) = user.find(':') {
                if colon + 1 < user.len() {
                    return Some((start + colon + 1, start + user_end));
                }
            }
        }
        from = start;
    }
    None
}

/// Query parameters whose value is a credential.
const SECRET_PARAMETERS: [&str; 12] = [
    "password",
    "passwd",
    "pwd",
    "token",
    "access_token",
    "auth_token",
    "api_key",
    "apikey",
    "key",
    "secret",
    "client_secret",
    "sig",
];

/// Whether `s` holds a URL with a credential in its query
/// (`?password=...`, `&token=...`, one of [`SECRET_PARAMETERS`], with a value).
pub fn secret_in_query(s: &str) -> bool {
    let Some(q) = s
        .find("://")
        .and_then(|at| s[at..].find('?').map(|i| at + i))
    else {
        return false;
    };
    s[q + 1..]
        .split(['&', ';', '#', ' '])
        .filter_map(|pair| pair.split_once('='))
        .any(|(name, value)| {
            !value.is_empty()
                && SECRET_PARAMETERS
                    .iter()
                    .any(|p| name.eq_ignore_ascii_case(p))
        })
}

/// Incoming webhooks whose URL is its own credential: whoever has it can post.
const TOKEN_WEBHOOKS: [&str; 5] = [
    "hooks.slack.com/services/",
    "hooks.slack.com/workflows/",
    "discord.com/api/webhooks/",
    "discordapp.com/api/webhooks/",
    ".webhook.office.com/",
];

/// Whether `s` holds an incoming webhook URL of [`TOKEN_WEBHOOKS`] with its token.
pub fn token_webhook(s: &str) -> bool {
    TOKEN_WEBHOOKS.iter().any(|host| {
        s.find(host).is_some_and(|at| {
            s[at + host.len()..]
                .chars()
                .any(|c| c.is_ascii_alphanumeric())
        })
    })
}

/// What credential `s` holds, in words, if any.
pub fn credential(s: &str) -> Option<&'static str> {
    // Each form holds a '/' (`://`, a webhook's path), which most strings (names, tables,
    // columns) do not: one byte search instead of seven substring searches, each of which sets
    // up a searcher (15% of `check`'s instructions at 10,000 tasks went there).
    if !s.contains('/') {
        return None;
    }
    if password_in_url(s).is_some() {
        Some("a URL with a password")
    } else if secret_in_query(s) {
        Some("a URL with a credential in its query (`password=`, `token=`, `key=`...)")
    } else if token_webhook(s) {
        Some("an incoming webhook URL, which is its own credential")
    } else {
        None
    }
}

/// Whether an environment variable's name says its value is a credential
/// (`..._PASSWORD`, `..._TOKEN`, `..._SECRET`, `..._API_KEY`, AWS's
/// secret access key, a `FLOW_TOKEN_*`).
fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("FLOW_TOKEN_")
        || upper.ends_with("PASSWORD")
        || upper == "MYSQL_PWD"
        || [
            "PASSWORD",
            "PASSWD",
            "TOKEN",
            "SECRET",
            "API_KEY",
            "APIKEY",
            "SECRET_ACCESS_KEY",
            "SECRET_KEY",
            "PRIVATE_KEY",
        ]
        .iter()
        .any(|end| upper == *end || upper.ends_with(&format!("_{end}")))
}

/// What credential the `env` entry `name` = `value` holds, in words, if any.
pub(crate) fn env_credential(name: &str, value: &str) -> Option<&'static str> {
    credential(value).or_else(|| {
        (secret_name(name) && !value.trim().is_empty()).then_some("a credential, by its name")
    })
}

fn finding(at: Loc, what: &str, how: &str) -> Diagnostic {
    Diagnostic::new(
        RULE.code,
        at.file,
        at.span,
        format!("{what} holds {how}: it is committed with the `.flow` file and copied into the files built from it"),
    )
    .help("give the declaration `secret \"NAME\"` and keep the URL in that Kubernetes Secret (key `url`) or Airflow Connection; write the URL here without its password")
}

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for d in &ctx.program.decls {
        if ctx.broken.contains(&d.loc.file) {
            continue;
        }
        for (name, value) in &d.params {
            let ParamValue::String(s) = value else {
                continue;
            };
            if let Some(how) = credential(s) {
                let at = d.param_locs.get(name).copied().unwrap_or(d.name_loc);
                out.push(finding(
                    at,
                    &format!("parameter `{name}` of {} `{}`", d.role.word(), d.name),
                    how,
                ));
            }
        }
    }
    for p in &ctx.program.pipelines {
        if ctx.broken.contains(&p.loc.file) {
            continue;
        }
        for (key, value) in &p.pod.annotations {
            if let Some(how) = credential(value) {
                out.push(finding(
                    p.name_loc,
                    &format!("annotation `{key}` of pipeline `{}`", p.name),
                    how,
                ));
            }
        }
        for t in &p.tasks {
            for ((name, value), at) in t.env.iter().zip(&t.env_locs) {
                let what = format!("`env` variable `{name}` of task `{}`", t.name);
                if let Some(how) = env_credential(name, value) {
                    out.push(finding(*at, &what, how));
                }
            }
            if let Some(run) = &t.run {
                if let Some(how) = run.command.iter().find_map(|a| credential(a)) {
                    out.push(finding(
                        run.loc,
                        &format!("an argument of the `run` command of task `{}`", t.name),
                        how,
                    ));
                }
            }
            for (key, value) in &t.pod.annotations {
                if let Some(how) = credential(value) {
                    out.push(finding(
                        t.name_loc,
                        &format!("annotation `{key}` of task `{}`", t.name),
                        how,
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{credential, password_in_url, secret_in_query, token_webhook};

    /// `credential` skips a string without a '/' before its three searches: the same answer.
    #[test]
    fn a_string_without_a_slash_holds_no_credential_by_any_of_the_checks() {
        for s in [
            "user:pass@host",
            "db?password=hunter2",
            "hooks.slack.com\\services\\T0\\B0\\X",
            "hooks.slack.com/services/T0/B0/X",
            "mysql:\\u:p@h",
            "orders_by_day",
            "https://u:p@h",
            "",
        ] {
            let full = password_in_url(s).is_some() || secret_in_query(s) || token_webhook(s);
            assert_eq!(credential(s).is_some(), full, "{s}");
            if !s.contains('/') {
                assert!(!full, "{s}");
            }
        }
    }

    #[test]
    fn finds_credentials_in_queries_and_token_webhooks() {
        for hot in [
            "mysql://db/x?password=hunter2",
            "https://api.example.com/v1?user=a&token=abc",
            "s3://bucket/path?X-Amz-Signature=1&sig=abc",
            "https://hooks.slack.com/services/T000/B000/XXXX",
            "https://discord.com/api/webhooks/1/abc",
            "https://acme.webhook.office.com/webhookb2/abc",
        ] {
            assert!(credential(hot).is_some(), "{hot}");
        }
        for cold in [
            "mysql://db/x?password=",
            "https://api.example.com/v1?user=a&tokens_left=3",
            "password=hunter2",
            "https://hooks.slack.com/",
            "https://example.com/services/T000",
            "s3://bucket/key=value/part",
        ] {
            assert!(credential(cold).is_none(), "{cold}");
        }
    }

    #[test]
    fn finds_a_password_only_in_the_user_part() {
        let url = "postgresql://app:s3cret@db:5432/warehouse";
        let (a, b) = password_in_url(url).expect("a password");
        assert_eq!(&url[a..b], "s3cret");
        assert!(password_in_url("x=1 https://u:p@h/x").is_some());
        for clean in [
            "postgresql://app@db:5432/warehouse",
            "postgresql://db:5432/warehouse",
            "https://example.com/a:b@c",
            "https://example.com/?next=u:p@h",
            "postgresql://app:@db/x",
            "user:pass@host",
            "",
        ] {
            assert_eq!(password_in_url(clean), None, "{clean}");
        }
    }
}
