//! The language's own words that completion offers and hover explains:
//! one function, [`words`], answers "which words may stand here", so that
//! completion and hover read one source. The settings come from the
//! catalog (`analyze/settings.rs`), with its summary lines.

use crate::analyze::model::Role;
use crate::analyze::settings;

/// Where a word may stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The start of a top-level item.
    Top,
    /// The start of a line in a source's, sink's or effect's block.
    Decl(Role),
    /// The start of a line in a pipeline's block (outside its tasks).
    Pipeline,
    /// The start of a line in a task's block.
    Task,
    /// The start of a line in a kind's block.
    Kind,
}

/// A word of the language, with what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
    pub name: &'static str,
    /// What sort of word it is (for a completion's detail and for hover).
    pub detail: Option<&'static str>,
    /// One line on what it does (the catalog's summary).
    pub summary: Option<&'static str>,
    /// How its value is written.
    pub usage: Option<&'static str>,
}

const TOP: [&str; 7] = [
    "source", "sink", "effect", "kind", "pipeline", "task", "use",
];

/// The statements of a pipeline that are not settings.
const PIPELINE_STATEMENTS: [&str; 3] = ["task", "param", "allow"];

/// The statements of a task that are not settings.
const TASK_STATEMENTS: [&str; 8] = [
    "after", "read", "key", "write", "emit", "run", "env", "allow",
];

fn plain(name: &'static str, detail: Option<&'static str>) -> Word {
    Word {
        name,
        detail,
        summary: None,
        usage: None,
    }
}

fn catalog(place: settings::Place, detail: &'static str) -> impl Iterator<Item = Word> {
    settings::at(place).map(move |s| Word {
        name: s.name,
        detail: Some(detail),
        summary: Some(s.summary),
        usage: Some(s.shape.usage()),
    })
}

/// The words that may stand at `place`, in the order they are offered.
pub fn words(place: Place) -> Vec<Word> {
    match place {
        Place::Top => TOP.iter().map(|w| plain(w, None)).collect(),
        Place::Decl(role) => catalog(
            settings::Place::of(role),
            match role {
                Role::Source => "source property",
                Role::Sink => "sink property",
                Role::Effect => "effect property",
            },
        )
        .collect(),
        Place::Pipeline => catalog(settings::Place::Pipeline, "pipeline setting")
            .chain(
                PIPELINE_STATEMENTS
                    .iter()
                    .map(|w| plain(w, Some("statement"))),
            )
            .collect(),
        Place::Task => catalog(settings::Place::Task, "task setting")
            .chain(TASK_STATEMENTS.iter().map(|w| plain(w, Some("statement"))))
            .collect(),
        Place::Kind => catalog(settings::Place::Kind, "capability line")
            .chain(std::iter::once(plain("param", Some("statement"))))
            .collect(),
    }
}

/// The word `name` at `place`, if it is one of the language's.
pub fn word(place: Place, name: &str) -> Option<Word> {
    words(place).into_iter().find(|w| w.name == name)
}

/// Hover text for a word: what it is and, for a setting, what it does and
/// how its value is written.
pub fn markdown(w: &Word, of: Option<&str>) -> String {
    let what = w.detail.unwrap_or("word");
    let mut s = match of {
        Some(of) => format!("**`{}`**: {what} of `{of}`", w.name),
        None => format!("**`{}`**: {what}", w.name),
    };
    if let Some(summary) = w.summary {
        s.push_str("\n\n");
        s.push_str(summary);
    }
    if let Some(usage) = w.usage {
        s.push_str("\n\nValue: ");
        s.push_str(usage);
    }
    s
}
