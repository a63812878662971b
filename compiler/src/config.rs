//! The configuration of a run: which rules report, at what severity, which
//! files are left out, and the default target of `flowc check`.
//!
//! Pure: a configuration file comes in as text (from `flowc.toml`, or the
//! `[tool.flowc]` table of a `pyproject.toml`); finding and reading it is
//! `io::read`'s. The file is read by serde into [`FileConfig`]
//! (`deny_unknown_fields`); every problem is one [`ConfigError`], whose
//! message names the file and the key (and the closest key, for an unknown
//! one). `--config KEY=VALUE` lines ([`parse_override`]) replace keys of it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use crate::diagnostic::{Code, Diagnostic, Severity};

/// The keys of a configuration, in the order `--show-settings` prints them.
const KEYS: [&str; 7] = [
    "select",
    "extend-select",
    "ignore",
    "severity",
    "per-file-ignores",
    "exclude",
    "target",
];

/// Findings no configuration turns off or makes a warning: a file that does
/// not parse (FL001), whose import fails (FL005) or that names what is not
/// declared (FL702) has no report and no output, and no other findings to
/// trust; and an `allow` always needs a reason (FL706).
pub const ALWAYS_ERRORS: [Code; 4] = [Code::FL001, Code::FL005, Code::FL702, Code::FL706];

/// A glob of a configuration, matched against a path relative to the
/// configuration's folder (or, without a `/`, against a file or folder name).
#[derive(Debug, Clone)]
pub struct Pattern {
    pub text: String,
    matcher: GlobMatcher,
}

impl Pattern {
    fn new(text: &str) -> Result<Pattern, String> {
        let glob = GlobBuilder::new(text.trim_start_matches("./"))
            .literal_separator(true)
            .build()
            .map_err(|e| {
                format!(
                    "`{text}` is not a glob: {}",
                    first_lower(&e.kind().to_string())
                )
            })?;
        Ok(Pattern {
            text: text.to_owned(),
            matcher: glob.compile_matcher(),
        })
    }

    /// Whether `rel` (relative to the configuration's folder, `/`-separated)
    /// or, for a pattern without `/`, any of its components matches.
    pub fn matches(&self, rel: &Path) -> bool {
        if self.matcher.is_match(rel) {
            return true;
        }
        let trimmed = self.text.trim_start_matches("./");
        !trimmed.contains('/')
            && rel
                .components()
                .any(|c| self.matcher.is_match(c.as_os_str()))
    }
}

fn first_lower(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_lowercase().collect::<String>() + chars.as_str()
    })
}

/// One configuration file, as written: the keys of `flowc.toml` (or of
/// `[tool.flowc]`), read by serde. A key it does not have is refused.
#[derive(Debug, Clone, Default, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct FileConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    /// Code (or selector) -> `"error"` or `"warning"`.
    pub severity: BTreeMap<String, String>,
    /// Glob -> the codes it turns off.
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
    pub exclude: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

impl FileConfig {
    /// This configuration with the keys of `over` (checked by
    /// [`parse_override`]) in place of its own.
    #[must_use]
    pub fn overlaid(&self, over: &toml::Table) -> FileConfig {
        use serde::Deserialize as _;
        if over.is_empty() {
            return self.clone();
        }
        let mut table = match toml::Value::try_from(self) {
            Ok(toml::Value::Table(t)) => t,
            _ => toml::Table::new(),
        };
        table.extend(over.iter().map(|(k, v)| (k.clone(), v.clone())));
        FileConfig::deserialize(toml::Value::Table(table)).unwrap_or_else(|_| self.clone())
    }
}

/// One `--config KEY=VALUE` of the command line (ruff's form: a line of
/// TOML, `select = ["FL2"]`), checked as a configuration file's keys are:
/// a known key, a value of its shape, codes and globs that exist, a target
/// among `targets`. Its errors name `--config`.
pub fn parse_override(arg: &str, targets: &[&str]) -> Result<toml::Table, ConfigError> {
    const SHOWN: &str = "--config";
    let table: toml::Table = toml::from_str(arg).map_err(|e| ConfigError::Toml {
        file: format!("{SHOWN} {arg}"),
        detail: toml_error(arg, &e),
    })?;
    let config = typed(&table, SHOWN, "", targets)?;
    settle(
        &config,
        None,
        Origin::Defaults { isolated: false },
        PathBuf::new(),
    )
    .map_err(|detail| ConfigError::Value {
        file: SHOWN.to_owned(),
        detail,
    })?;
    Ok(table)
}

/// What is wrong with a configuration, with the file it is in (as shown)
/// and the key (with its `tool.flowc.` prefix in a `pyproject.toml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// The file is not TOML: where and why.
    Toml { file: String, detail: String },
    /// `tool.flowc` of a `pyproject.toml` is not a table.
    NotATable { file: String },
    /// A key the configuration does not have, with the closest one.
    UnknownKey {
        file: String,
        key: String,
        near: Option<&'static str>,
    },
    /// A value of the wrong shape; `entry` names the line of a table.
    Shape {
        file: String,
        key: String,
        entry: Option<String>,
        expected: &'static str,
    },
    /// `target` names no target.
    NoTarget {
        file: String,
        key: String,
        target: String,
        targets: Vec<String>,
    },
    /// A value of the right shape that means nothing (an unknown rule, a
    /// bad glob, a severity that is neither): the message of [`settle`].
    Value { file: String, detail: String },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Toml { file, detail } => write!(f, "`{file}` is not valid TOML: {detail}"),
            ConfigError::NotATable { file } => write!(f, "`{file}`: `tool.flowc` must be a table"),
            ConfigError::UnknownKey { file, key, near } => write!(
                f,
                "`{file}`: `{key}`: unknown key{}",
                crate::suggest::mean(*near)
            ),
            ConfigError::Shape {
                file,
                key,
                entry: None,
                expected,
            } => write!(f, "`{file}`: `{key}` must be {expected}"),
            ConfigError::Shape {
                file,
                key,
                entry: Some(entry),
                expected,
            } => write!(f, "`{file}`: `{key}`: `{entry}` must be {expected}"),
            ConfigError::NoTarget {
                file,
                key,
                target,
                targets,
            } => write!(
                f,
                "`{file}`: `{key}`: no target `{target}` (one of {})",
                quoted(targets.iter().map(String::as_str))
            ),
            ConfigError::Value { file, detail } => write!(f, "`{file}`: {detail}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<ConfigError> for String {
    fn from(e: ConfigError) -> String {
        e.to_string()
    }
}

/// What the command line adds: it beats the file (`--select` starts the
/// selection afresh, as a file's `select` does; `--ignore` and
/// `--extend-select` add to it).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    pub target: Option<String>,
    /// `--config KEY=VALUE` lines, in place of the file's keys (beneath
    /// the options above).
    pub config: toml::Table,
}

/// Where the settings came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// No configuration file was found (or `--isolated`).
    Defaults { isolated: bool },
    /// This file (`flowc.toml` or `pyproject.toml`).
    File(PathBuf),
}

/// The settings in force for the files under one folder.
#[derive(Debug, Clone)]
pub struct Settings {
    pub origin: Origin,
    /// The folder globs are relative to: the configuration file's, else the
    /// current one.
    pub dir: PathBuf,
    pub enabled: BTreeSet<Code>,
    pub severity: BTreeMap<Code, Severity>,
    pub per_file_ignores: Vec<(Pattern, BTreeSet<Code>)>,
    pub exclude: Vec<Pattern>,
    pub target: Option<String>,
}

/// Parse a configuration file's text. `pyproject` reads the
/// `[tool.flowc]` table and returns `None` when there is none; `targets`
/// are the names `target` may take (any, when empty: only `flowc check`
/// reads the target, and it passes them). The error as the message
/// printed; [`read`] gives it typed.
pub fn parse(
    text: &str,
    shown: &str,
    pyproject: bool,
    targets: &[&str],
) -> Result<Option<FileConfig>, String> {
    read(text, shown, pyproject, targets).map_err(String::from)
}

/// [`parse`], with the error typed.
pub fn read(
    text: &str,
    shown: &str,
    pyproject: bool,
    targets: &[&str],
) -> Result<Option<FileConfig>, ConfigError> {
    let doc: toml::Table = toml::from_str(text).map_err(|e| ConfigError::Toml {
        file: shown.to_owned(),
        detail: toml_error(text, &e),
    })?;
    let (table, prefix) = if pyproject {
        let Some(tool) = doc.get("tool") else {
            return Ok(None);
        };
        let Some(flowc) = tool.get("flowc") else {
            return Ok(None);
        };
        let Some(t) = flowc.as_table() else {
            return Err(ConfigError::NotATable {
                file: shown.to_owned(),
            });
        };
        (t.clone(), "tool.flowc.")
    } else {
        (doc, "")
    };
    let config = typed(&table, shown, prefix, targets)?;
    // Every code and glob is checked now, so a mistake is reported with
    // its file even when the command line overrides the key.
    settle(
        &config,
        None,
        Origin::Defaults { isolated: false },
        PathBuf::new(),
    )
    .map_err(|e| ConfigError::Value {
        file: shown.to_owned(),
        detail: e.replacen('`', &format!("`{prefix}"), 1),
    })?;
    Ok(Some(config))
}

/// The table as a [`FileConfig`]. Serde reads it; when it refuses, the
/// first key in the table's order whose value serde refuses on its own
/// is the one reported, with the shape its field takes.
/// A `target` not among `targets` (when given) is refused too, in the
/// table's order with the rest.
fn typed(
    table: &toml::Table,
    shown: &str,
    prefix: &str,
    targets: &[&str],
) -> Result<FileConfig, ConfigError> {
    use serde::Deserialize as _;
    let no_target = |t: &str| {
        (!targets.is_empty() && !targets.contains(&t)).then(|| ConfigError::NoTarget {
            file: shown.to_owned(),
            key: format!("{prefix}target"),
            target: t.to_owned(),
            targets: targets.iter().map(|t| (*t).to_owned()).collect(),
        })
    };
    let refused = match FileConfig::deserialize(toml::Value::Table(table.clone())) {
        Ok(config) => match config.target.as_deref().and_then(no_target) {
            Some(e) => return Err(e),
            None => return Ok(config),
        },
        Err(e) => e,
    };
    for (key, value) in table {
        let at = format!("{prefix}{key}");
        if let Some(e) = value
            .as_str()
            .filter(|_| key == "target")
            .and_then(no_target)
        {
            return Err(e);
        }
        let alone: toml::Table = [(key.clone(), value.clone())].into_iter().collect();
        if FileConfig::deserialize(toml::Value::Table(alone)).is_ok() {
            continue;
        }
        let shape = |entry: Option<&String>, expected| ConfigError::Shape {
            file: shown.to_owned(),
            key: at.clone(),
            entry: entry.cloned(),
            expected,
        };
        return Err(match key.as_str() {
            "select" | "extend-select" | "ignore" | "exclude" => shape(None, "a list of strings"),
            "target" => shape(None, "a string"),
            "severity" => match value.as_table() {
                None => shape(None, "a table of `CODE = \"error\"` lines"),
                Some(t) => shape(
                    t.iter().find(|(_, v)| !v.is_str()).map(|(k, _)| k),
                    "\"error\" or \"warning\"",
                ),
            },
            "per-file-ignores" => match value.as_table() {
                None => shape(None, "a table of `\"GLOB\" = [\"CODE\", ...]` lines"),
                Some(t) => shape(
                    t.iter()
                        .find(|(_, v)| {
                            !v.as_array()
                                .is_some_and(|a| a.iter().all(toml::Value::is_str))
                        })
                        .map(|(k, _)| k),
                    "a list of strings",
                ),
            },
            _ => ConfigError::UnknownKey {
                file: shown.to_owned(),
                key: at,
                near: crate::suggest::closest(key, KEYS),
            },
        });
    }
    // Refused as a whole but each key alone is fine: cannot happen with
    // independent keys; say what serde said rather than nothing.
    Err(ConfigError::Value {
        file: shown.to_owned(),
        detail: refused.to_string(),
    })
}

/// The characters of the offending line shown on each side of a TOML
/// error's position.
const EXCERPT_CHARS: usize = 24;

/// A TOML error in one line: where it is, what is wrong, and an excerpt of
/// the offending line around the position, cut to [`EXCERPT_CHARS`] on
/// each side and with control characters escaped as diagnostics show them
/// (never the whole line: the file may not be a configuration at all).
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let what = crate::diagnostic::human::escape_controls(&one_line(e.message())).into_owned();
    let what = cut_chars(&what, 120);
    let Some(span) = e.span() else {
        return what;
    };
    let at = floor_char(text, span.start.min(text.len()));
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line_no = text[..at].matches('\n').count() + 1;
    let column = text[line_start..at].chars().count() + 1;
    let before: Vec<char> = text[line_start..at].chars().collect();
    let after: Vec<char> = text[at..line_end].trim_end_matches('\r').chars().collect();
    let head = before.len().saturating_sub(EXCERPT_CHARS);
    let mut excerpt = String::new();
    if head > 0 {
        excerpt.push('…');
    }
    excerpt.extend(&before[head..]);
    excerpt.extend(after.iter().take(EXCERPT_CHARS));
    if after.len() > EXCERPT_CHARS {
        excerpt.push('…');
    }
    let excerpt = crate::diagnostic::human::escape_controls(&excerpt).into_owned();
    format!("line {line_no}, column {column}: {what} (near `{excerpt}`)")
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_owned();
    }
    s.chars().take(n).chain(std::iter::once('…')).collect()
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn quoted<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The codes a selector names: a code (`FL202`, any case), a rule name
/// (`unpinned-mutable-input`), a prefix of codes (`FL2`, `FL20`), or `ALL`.
pub fn codes_of(selector: &str) -> Result<Vec<Code>, String> {
    if selector == "ALL" {
        return Ok(Code::ALL.to_vec());
    }
    if let Some(c) = Code::lookup(selector) {
        return Ok(vec![c]);
    }
    let upper = selector.to_ascii_uppercase();
    let is_prefix = upper.len() > 2
        && upper.starts_with("FL")
        && upper[2..].bytes().all(|b| b.is_ascii_digit());
    let found: Vec<Code> = if is_prefix {
        Code::ALL
            .iter()
            .copied()
            .filter(|c| c.as_str().starts_with(&upper))
            .collect()
    } else {
        Vec::new()
    };
    if found.is_empty() {
        let names = Code::ALL.iter().flat_map(|c| [c.name(), c.as_str()]);
        let near = crate::suggest::did_you_mean(selector, names);
        let list = if near.is_empty() {
            "; `flowc rules` lists them"
        } else {
            ""
        };
        return Err(format!("no rule `{selector}`{near}{list}"));
    }
    Ok(found)
}

fn codes_of_all(list: &[String], key: &str) -> Result<BTreeSet<Code>, String> {
    let mut out = BTreeSet::new();
    for s in list {
        out.extend(codes_of(s).map_err(|e| format!("`{key}`: {e}"))?);
    }
    Ok(out)
}

/// The settings of a configuration file (or none) with the command line's
/// overrides on top.
pub fn settle(
    file: &FileConfig,
    cli: Option<&Overrides>,
    origin: Origin,
    dir: PathBuf,
) -> Result<Settings, String> {
    let none = Overrides::default();
    let cli = cli.unwrap_or(&none);
    let overlaid;
    let file = if cli.config.is_empty() {
        file
    } else {
        overlaid = file.overlaid(&cli.config);
        &overlaid
    };
    let mut enabled: BTreeSet<Code> = match &file.select {
        Some(s) => codes_of_all(s, "select")?,
        None => Code::ALL.iter().copied().collect(),
    };
    enabled.extend(codes_of_all(&file.extend_select, "extend-select")?);
    let ignored = codes_of_all(&file.ignore, "ignore")?;
    refuse_always(&file.ignore, "ignore")?;
    enabled.retain(|c| !ignored.contains(c));
    if let Some(s) = &cli.select {
        enabled = codes_of_all(s, "--select")?;
    }
    enabled.extend(codes_of_all(&cli.extend_select, "--extend-select")?);
    refuse_always(&cli.ignore, "--ignore")?;
    let ignored = codes_of_all(&cli.ignore, "--ignore")?;
    enabled.retain(|c| !ignored.contains(c));
    enabled.extend(ALWAYS_ERRORS);

    let mut severity = BTreeMap::new();
    for (code, level) in &file.severity {
        let level = match level.as_str() {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            other => {
                return Err(format!(
                "`severity`: `{code}` is \"{other}\", but a severity is \"error\" or \"warning\""
            ))
            }
        };
        for c in codes_of(code).map_err(|e| format!("`severity`: {e}"))? {
            if ALWAYS_ERRORS.contains(&c) && level == Severity::Warning {
                if Code::lookup(code).is_some() {
                    return Err(format!(
                        "`severity`: `{c}` is always an error (a file with it has no other findings to trust \
                         and no output, or an `allow` lacks its reason)"
                    ));
                }
                continue;
            }
            severity.insert(c, level);
        }
    }
    let mut per_file_ignores = Vec::new();
    for (glob, codes) in &file.per_file_ignores {
        let key = format!("per-file-ignores`: `{glob}");
        let pattern = Pattern::new(glob).map_err(|e| format!("`per-file-ignores`: {e}"))?;
        refuse_always(codes, &key)?;
        let mut set = codes_of_all(codes, &key)?;
        set.retain(|c| !ALWAYS_ERRORS.contains(c));
        per_file_ignores.push((pattern, set));
    }
    let exclude = file
        .exclude
        .iter()
        .map(|g| Pattern::new(g).map_err(|e| format!("`exclude`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Settings {
        origin,
        dir,
        enabled,
        severity,
        per_file_ignores,
        exclude,
        target: cli.target.clone().or_else(|| file.target.clone()),
    })
}

/// A code of [`ALWAYS_ERRORS`] named by itself (not through a prefix) in an
/// ignore list is a mistake worth saying.
fn refuse_always(list: &[String], key: &str) -> Result<(), String> {
    for s in list {
        if let Some(c) = Code::lookup(s).filter(|c| ALWAYS_ERRORS.contains(c)) {
            return Err(format!(
                "`{key}`: `{c}` cannot be ignored: it is always reported (a file that does not parse, whose \
                 import fails or that names what is not declared has no output and no other findings \
                 to trust, and an `allow` needs its reason)"
            ));
        }
    }
    Ok(())
}

impl Settings {
    /// The settings of no configuration file.
    pub fn defaults(
        cli: Option<&Overrides>,
        isolated: bool,
        dir: PathBuf,
    ) -> Result<Settings, String> {
        settle(
            &FileConfig::default(),
            cli,
            Origin::Defaults { isolated },
            dir,
        )
    }

    fn relative<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.dir).ok()
    }

    /// Whether a file or folder found while searching a folder is left out.
    /// `path` is absolute (or relative to the same folder as [`Settings::dir`]).
    pub fn excludes(&self, path: &Path) -> bool {
        self.relative(path)
            .is_some_and(|rel| self.exclude.iter().any(|p| p.matches(rel)))
    }

    /// Whether a file or folder found while searching the folder `named`
    /// (named on the command line) is left out: as [`Settings::excludes`],
    /// except that a pattern matching `named` itself or a folder above it does
    /// not count. A folder named on the command line is searched, as a file
    /// named there is checked, even when the configuration excludes it.
    pub fn excludes_below(&self, named: &Path, path: &Path) -> bool {
        let Some(rel) = self.relative(path) else {
            return false;
        };
        let named_rel = self
            .relative(named)
            .filter(|r| !r.as_os_str().is_empty() && *r != Path::new("."));
        self.exclude
            .iter()
            .any(|p| p.matches(rel) && !named_rel.is_some_and(|n| p.matches(n)))
    }

    /// Apply the settings to one finding of the file at `path` (absolute):
    /// `false` drops it; its severity may change.
    pub fn settle(&self, path: &Path, d: &mut Diagnostic) -> bool {
        if !self.enabled.contains(&d.code) {
            return false;
        }
        if let Some(rel) = self.relative(path) {
            if self
                .per_file_ignores
                .iter()
                .any(|(p, codes)| codes.contains(&d.code) && p.matches(rel))
            {
                return false;
            }
        }
        if let Some(s) = self.severity.get(&d.code) {
            d.severity = *s;
        }
        true
    }

    /// What `flowc check --show-settings` prints.
    pub fn show(&self) -> String {
        let mut out = String::new();
        let origin = match &self.origin {
            Origin::Defaults { isolated: true } => "none (--isolated)".to_owned(),
            Origin::Defaults { isolated: false } => "none found (the defaults)".to_owned(),
            Origin::File(p) => format!("`{}`", p.to_string_lossy().replace('\\', "/")),
        };
        let _ = writeln!(out, "config: {origin}");
        let _ = writeln!(out, "target: {}", self.target.as_deref().unwrap_or("none"));
        let all: BTreeSet<Code> = Code::ALL.iter().copied().collect();
        let off: Vec<&str> = all.difference(&self.enabled).map(|c| c.as_str()).collect();
        let on: Vec<&str> = self.enabled.iter().map(|c| c.as_str()).collect();
        let _ = writeln!(out, "enabled: {}", words(&on));
        let _ = writeln!(out, "disabled: {}", words(&off));
        out.push_str("severity:");
        let changed: Vec<String> = self
            .severity
            .iter()
            .filter(|(c, s)| c.severity() != **s)
            .map(|(c, s)| format!(" {c}={}", s.word()))
            .collect();
        out.push_str(&if changed.is_empty() {
            " (the rules' own)".to_owned()
        } else {
            changed.concat()
        });
        out.push('\n');
        out.push_str("per-file-ignores:");
        if self.per_file_ignores.is_empty() {
            out.push_str(" none");
        }
        out.push('\n');
        for (p, codes) in &self.per_file_ignores {
            let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
            let _ = writeln!(out, "  \"{}\" = {}", p.text, words(&codes));
        }
        let ex: Vec<&str> = self.exclude.iter().map(|p| p.text.as_str()).collect();
        let _ = writeln!(out, "exclude: {}", words(&ex));
        out
    }
}

fn words(items: &[&str]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TARGETS: [&str; 2] = ["airflow", "argo"];

    #[test]
    fn selectors_name_codes_names_and_prefixes() {
        assert_eq!(codes_of("fl202").expect("code"), vec![Code::FL202]);
        assert_eq!(codes_of("unused-allow").expect("name"), vec![Code::FL705]);
        assert!(codes_of("FL70").expect("prefix").contains(&Code::FL707));
        assert_eq!(codes_of("FL9").expect("prefix"), vec![Code::FL900]);
        assert!(codes_of("FL95").is_err());
        assert!(codes_of("FL").is_err());
        assert!(codes_of("unused-alow")
            .unwrap_err()
            .contains("unused-allow"));
    }

    #[test]
    fn parse_errors_name_the_file_and_key() {
        let e = parse("selct = []", "flowc.toml", false, &TARGETS).unwrap_err();
        assert!(
            e.contains("`flowc.toml`") && e.contains("`selct`") && e.contains("select"),
            "{e}"
        );
        let e = parse(
            "[tool.flowc]\nignore = [\"FL999\"]",
            "pyproject.toml",
            true,
            &TARGETS,
        )
        .unwrap_err();
        assert!(
            e.contains("`tool.flowc.ignore`") && e.contains("FL999"),
            "{e}"
        );
        let e = parse(
            "[severity]\nFL202 = \"fatal\"",
            "flowc.toml",
            false,
            &TARGETS,
        )
        .unwrap_err();
        assert!(e.contains("fatal"), "{e}");
        let e = parse(
            "[per-file-ignores]\n\"a[\" = [\"FL202\"]",
            "flowc.toml",
            false,
            &TARGETS,
        )
        .unwrap_err();
        assert!(e.contains("a["), "{e}");
        let e = parse("target = \"nomad\"", "flowc.toml", false, &TARGETS).unwrap_err();
        assert!(e.contains("nomad"), "{e}");
        assert!(parse("ignore = [\"FL001\"]", "flowc.toml", false, &TARGETS).is_err());
        // A pyproject.toml without the table is no configuration.
        assert!(
            parse("[tool.ruff]\nx = 1", "pyproject.toml", true, &TARGETS)
                .expect("valid")
                .is_none()
        );
    }

    #[test]
    fn the_command_line_beats_the_file() {
        let file = parse(
            "ignore = [\"FL202\"]\n[severity]\nFL101 = \"warning\"",
            "f",
            false,
            &TARGETS,
        )
        .expect("valid")
        .expect("a config");
        let s = settle(
            &file,
            None,
            Origin::Defaults { isolated: false },
            PathBuf::new(),
        )
        .expect("ok");
        assert!(!s.enabled.contains(&Code::FL202));
        assert_eq!(s.severity.get(&Code::FL101), Some(&Severity::Warning));
        let cli = Overrides {
            select: Some(vec!["FL2".into()]),
            ..Overrides::default()
        };
        let s = settle(
            &file,
            Some(&cli),
            Origin::Defaults { isolated: false },
            PathBuf::new(),
        )
        .expect("ok");
        assert!(s.enabled.contains(&Code::FL202));
        assert!(!s.enabled.contains(&Code::FL101));
        assert!(s.enabled.contains(&Code::FL001), "parse errors stay on");
    }

    #[test]
    fn the_keys_are_the_fields_of_the_serde_struct() {
        use serde::Deserialize as _;
        let sample = |key: &str| -> toml::Value {
            match key {
                "severity" | "per-file-ignores" => toml::Value::Table(toml::Table::new()),
                "target" => toml::Value::String("argo".into()),
                _ => toml::Value::Array(Vec::new()),
            }
        };
        for key in KEYS {
            let t: toml::Table = [(key.to_owned(), sample(key))].into_iter().collect();
            assert!(
                FileConfig::deserialize(toml::Value::Table(t)).is_ok(),
                "{key}"
            );
        }
        let t: toml::Table = [("selekt".to_owned(), sample("select"))]
            .into_iter()
            .collect();
        assert!(FileConfig::deserialize(toml::Value::Table(t)).is_err());
        let e = read("zzz = 1\ntarget = \"nomad\"", "f", false, &TARGETS).unwrap_err();
        assert!(matches!(e, ConfigError::NoTarget { .. }), "{e}");
        let e = read("selekt = []", "f", false, &TARGETS).unwrap_err();
        assert_eq!(
            e,
            ConfigError::UnknownKey {
                file: "f".into(),
                key: "selekt".into(),
                near: Some("select"),
            }
        );
    }
}
