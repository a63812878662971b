//! The language's own words that completion offers and hover explains:
//! one function, [`words`], answers "which words may stand here", so that
//! completion and hover read one source (and it can be pointed at a
//! catalog of settings without touching either).

use crate::analyze::model::Role;

/// Where a word may stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The start of a top-level item.
    Top,
    /// The start of a line in a source's, sink's or effect's block.
    Decl(Role),
}

/// A word of the language, with what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
    pub name: &'static str,
    /// A short description (for a completion's detail and for hover).
    pub detail: Option<&'static str>,
}

const TOP: [&str; 7] = [
    "source", "sink", "effect", "kind", "pipeline", "task", "use",
];

/// The words that may stand at `place`, in the order they are offered.
pub fn words(place: Place) -> Vec<Word> {
    match place {
        Place::Top => TOP
            .iter()
            .map(|w| Word {
                name: w,
                detail: None,
            })
            .collect(),
        Place::Decl(role) => crate::analyze::resolve::role_props(role)
            .iter()
            .map(|p| Word {
                name: p,
                detail: Some(match role {
                    Role::Source => "source property",
                    Role::Sink => "sink property",
                    Role::Effect => "effect property",
                }),
            })
            .collect(),
    }
}

/// The word `name` at `place`, if it is one of the language's.
pub fn word(place: Place, name: &str) -> Option<Word> {
    words(place).into_iter().find(|w| w.name == name)
}
