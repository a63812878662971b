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

fn finding(at: Loc, what: &str) -> Diagnostic {
    Diagnostic::new(
        RULE.code,
        at.file,
        at.span,
        format!("{what} holds a URL with a password: it is committed with the `.flow` file and copied into the files built from it"),
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
            if password_in_url(s).is_some() {
                let at = d.param_locs.get(name).copied().unwrap_or(d.name_loc);
                out.push(finding(
                    at,
                    &format!("parameter `{name}` of {} `{}`", d.role.word(), d.name),
                ));
            }
        }
    }
    for p in &ctx.program.pipelines {
        for t in &p.tasks {
            for ((name, value), at) in t.env.iter().zip(&t.env_locs) {
                if password_in_url(value).is_some() {
                    out.push(finding(
                        *at,
                        &format!("`env` variable `{name}` of task `{}`", t.name),
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::password_in_url;

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
