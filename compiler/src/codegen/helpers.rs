//! What the targets' handlebars helpers share: reading a helper's argument,
//! and `{{py_str s}}`, which both Python targets (Airflow DAGs and task
//! scaffolding) register.

use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason,
};
use serde_json::Value;

use super::quote::python_str;

/// A handlebars registry as every target starts one: strict (a missing
/// field is an error, not an empty string) and with no HTML escaping, since
/// every string reaches the output through a quoting helper instead.
pub(crate) fn registry() -> Handlebars<'static> {
    let mut hb = Handlebars::new();
    hb.set_strict_mode(true);
    hb.register_escape_fn(handlebars::no_escape);
    hb
}

/// The helper's first argument, or an error naming the helper.
pub(crate) fn param<'a>(
    helper: &'a Helper<'_>,
    name: &'static str,
) -> Result<&'a Value, RenderError> {
    helper
        .param(0)
        .map(handlebars::PathAndJson::value)
        .ok_or_else(|| RenderErrorReason::ParamNotFoundForIndex(name, 0).into())
}

/// The helper's first argument, which must be a string. Templates only pass
/// strings flowc built, so anything else is a bug in a template, reported
/// with the value it got instead of emitting broken output.
pub(crate) fn string_param<'a>(
    helper: &'a Helper<'_>,
    name: &'static str,
) -> Result<&'a str, RenderError> {
    match param(helper, name)? {
        Value::String(s) => Ok(s),
        other => {
            Err(RenderErrorReason::Other(format!("{name} expects a string, got {other}")).into())
        }
    }
}

/// A helper `{{NAME s}}` that writes the string `s` through `quote`:
/// `{{py_str s}}` a Python string literal, `{{yaml s}}` a YAML scalar.
pub(crate) fn quoting(
    name: &'static str,
    quote: fn(&str) -> String,
) -> impl Fn(
    &Helper<'_>,
    &Handlebars<'_>,
    &Context,
    &mut RenderContext<'_, '_>,
    &mut dyn Output,
) -> HelperResult
       + Send
       + Sync {
    move |helper, _, _, _, out| {
        out.write(&quote(string_param(helper, name)?))?;
        Ok(())
    }
}

/// A helper `{{NAME s}}` that writes the string `s` as it is, after
/// checking it with `accepts`: for names flowc chose, which must already be
/// what the output needs (anything else is a bug, reported instead of
/// emitting broken code).
pub(crate) fn checked(
    name: &'static str,
    accepts: fn(&str) -> bool,
    what: &'static str,
) -> impl Fn(
    &Helper<'_>,
    &Handlebars<'_>,
    &Context,
    &mut RenderContext<'_, '_>,
    &mut dyn Output,
) -> HelperResult
       + Send
       + Sync {
    move |helper, _, _, _, out| {
        let value = string_param(helper, name)?;
        if !accepts(value) {
            return Err(
                RenderErrorReason::Other(format!("{name}: `{value}` is not {what}")).into(),
            );
        }
        out.write(value)?;
        Ok(())
    }
}

/// `{{py_str s}}`: a Python string literal that reads back as `s`.
pub(crate) fn py_str_helper() -> Box<dyn handlebars::HelperDef + Send + Sync> {
    Box::new(quoting("py_str", python_str))
}

/// The text of a comment line (`# ...`) in Python or YAML: `s` with every
/// control character and Unicode line or paragraph separator made a blank,
/// so nothing a user wrote can end the comment and start code.
pub(crate) fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// `{{comment s}}`: `s` as the text of a comment line ([`comment_text`]).
pub(crate) fn comment_helper() -> Box<dyn handlebars::HelperDef + Send + Sync> {
    Box::new(quoting("comment", comment_text))
}

#[cfg(test)]
mod tests {
    use handlebars::Handlebars;
    use serde_json::json;

    use super::{checked, comment_text, py_str_helper};

    #[test]
    fn a_comment_stays_on_its_line() {
        assert_eq!(
            comment_text("a\nb\r\nc\u{85}d\u{2028}e\u{2029}f\u{1b}g"),
            "a b  c d e f g"
        );
        assert_eq!(
            comment_text("`emit x` is at_least_once: ok"),
            "`emit x` is at_least_once: ok"
        );
    }

    fn registry() -> Handlebars<'static> {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_helper("py_str", py_str_helper());
        hb
    }

    #[test]
    fn py_str_quotes_a_string() {
        let out = registry()
            .render_template("{{py_str s}}", &json!({"s": "it's \"x\"\n"}))
            .expect("a string renders");
        assert_eq!(out, r#""it's \"x\"\n""#);
    }

    #[test]
    fn py_str_refuses_anything_but_a_string_and_a_missing_argument() {
        let hb = registry();
        let err = hb
            .render_template("{{py_str n}}", &json!({"n": 5}))
            .expect_err("a number is not a string");
        assert!(
            err.to_string().contains("py_str expects a string, got 5"),
            "{err}"
        );
        let err = hb
            .render_template("{{py_str}}", &json!({}))
            .expect_err("no argument");
        assert!(err.to_string().contains("py_str"), "{err}");
    }

    #[test]
    fn checked_writes_what_it_accepts_and_refuses_the_rest() {
        let mut hb = Handlebars::new();
        hb.register_helper(
            "lower",
            Box::new(checked(
                "lower",
                |s| s.chars().all(|c| c.is_ascii_lowercase()),
                "lowercase",
            )),
        );
        assert_eq!(
            hb.render_template("{{lower s}}", &json!({"s": "abc"}))
                .expect("renders"),
            "abc"
        );
        let err = hb
            .render_template("{{lower s}}", &json!({"s": "aBc"}))
            .expect_err("not lowercase");
        assert!(
            err.to_string().contains("lower: `aBc` is not lowercase"),
            "{err}"
        );
    }
}
