//! The language's vocabulary: guarantees, write modes, pins, key terms,
//! effect tracking, commit modes, parameter types and values. The front end
//! reads them, the analysis reasons with them, the IR (`codegen::ir`)
//! carries them. Each word enum has one table of its spellings, used to
//! parse it, print it and (de)serialize it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A fieldless enum with one word per variant: `ALL` (word, variant) in
/// declaration order, `word`, `from_word`, and serde through the same words.
macro_rules! words {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $word:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every variant with its word, in declaration order.
            pub const ALL: [(&'static str, $name); [$($word),*].len()] =
                [$(($word, $name::$variant)),*];

            /// How it is written.
            pub fn word(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)*
                }
            }

            /// The variant written `word`.
            pub fn from_word(word: &str) -> Option<$name> {
                Self::ALL.iter().find(|(w, _)| *w == word).map(|(_, v)| *v)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.word())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let word = String::deserialize(d)?;
                $name::from_word(&word).ok_or_else(|| {
                    serde::de::Error::unknown_variant(&word, &[$($word),*])
                })
            }
        }
    };
}

words! {
    /// What happens to a record if a task is retried, from strongest to weakest.
    #[derive(PartialOrd, Ord)]
    pub enum Guarantee {
        ExactlyOnce = "exactly_once",
        EffectivelyOnce = "effectively_once",
        AtLeastOnce = "at_least_once",
        AtMostOnce = "at_most_once",
        None = "none",
    }
}

impl Guarantee {
    /// `self >= other` in the guarantee lattice.
    pub fn at_least(self, other: Guarantee) -> bool {
        use Guarantee::{AtLeastOnce, AtMostOnce, EffectivelyOnce, ExactlyOnce, None};
        match (self, other) {
            (EffectivelyOnce, b) => b != ExactlyOnce,
            (_, None)
            | (ExactlyOnce, _)
            | (AtLeastOnce, AtLeastOnce)
            | (AtMostOnce, AtMostOnce) => true,
            _ => false,
        }
    }

    /// The lattice meet.
    #[must_use]
    pub fn meet(self, other: Guarantee) -> Guarantee {
        if self.at_least(other) {
            other
        } else if other.at_least(self) {
            self
        } else {
            Guarantee::None
        }
    }
}

words! {
    /// How a task writes to a sink.
    pub enum Mode {
        Upsert = "upsert",
        InsertIfAbsent = "insert_if_absent",
        ReplacePartition = "replace_partition",
        Append = "append",
        AppendLedger = "append_ledger",
        CheckThenAppend = "check_then_append",
        ConditionalCommit = "conditional_commit",
        Overwrite = "overwrite",
        Transactional = "transactional",
    }
}

impl Mode {
    /// How the mode is written in a `.flow` file.
    pub fn source(self) -> &'static str {
        match self {
            Mode::ReplacePartition => "replace partition",
            Mode::AppendLedger => "append ledger",
            other => other.word(),
        }
    }

    /// The `writes` capability the mode needs.
    pub fn capability(self) -> &'static str {
        match self {
            Mode::ReplacePartition => "replace",
            Mode::AppendLedger => "ledger",
            other => other.word(),
        }
    }
}

words! {
    /// What a read pins, so that a retry reads the same input.
    #[derive(PartialOrd, Ord)]
    pub enum Pin {
        Version = "version",
        Snapshot = "snapshot",
        Listing = "listing",
        Offsets = "offsets",
        /// An incremental read by the source's cursor column (flowc 0.3):
        /// the range `(bookmark - lookback, high]` of the first attempt.
        Cursor = "cursor",
    }
}

words! {
    /// How an effect's delivery is tracked.
    pub enum Tracking {
        Outbox = "outbox",
        IdempotencyKey = "idempotency_key",
        Untracked = "untracked",
    }
}

words! {
    /// What a task does after an ambiguous failure.
    pub enum OnAmbiguous {
        Retry = "retry",
        Fail = "fail",
    }
}

words! {
    /// When a read's offsets are committed.
    #[derive(PartialOrd, Ord)]
    pub enum CommitMode {
        Auto = "auto",
        BeforeWrite = "before_write",
        AfterWrite = "after_write",
        InTransaction = "in_transaction",
    }
}

/// The values of a standard kind's parameter that takes one of a few words
/// (as a string): `(kind, parameter, values)`. A value outside them is FL002.
pub const ENUMERATED_PARAMS: &[(&str, &str, &[&str])] =
    &[("files", "format", &["parquet", "csv", "jsonl", "json"])];

words! {
    /// The type of a kind parameter.
    pub enum ParamType {
        String = "string",
        Int = "int",
        Bool = "bool",
        Duration = "duration",
        Key = "key",
    }
}

/// One term of a key expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "term", rename_all = "snake_case")]
pub enum Term {
    InputField { field: String },
    InputHash,
    OutputField { field: String },
    OutputHash,
    IntervalStart,
    IntervalEnd,
    RunId,
    AttemptId,
    AttemptNumber,
    Now,
    Uuid,
    Random,
}

impl Term {
    /// A term new at every attempt of one run (FL101's terms): a retry gets
    /// a new value, not only a re-run.
    pub fn per_attempt(&self) -> bool {
        matches!(
            self,
            Term::AttemptId | Term::AttemptNumber | Term::Now | Term::Uuid | Term::Random
        )
    }
}

/// A kind parameter's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Bool(bool),
    Int(u64),
    String(String),
    /// A `key` parameter: one field or a tuple of fields.
    Fields(Vec<String>),
}

#[cfg(test)]
mod tests {
    use super::{CommitMode, Guarantee, Mode, OnAmbiguous, ParamType, Pin, Tracking};

    /// Serde spells each word enum with its table, both ways.
    #[test]
    fn serde_uses_the_words() {
        fn round_trip<T>(all: &[(&str, T)])
        where
            T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug + Copy,
        {
            for (w, v) in all {
                let json = serde_json::to_string(v).expect("serializes");
                assert_eq!(json, format!("\"{w}\""));
                assert_eq!(serde_json::from_str::<T>(&json).expect("parses"), *v);
            }
        }
        round_trip(&Guarantee::ALL);
        round_trip(&Mode::ALL);
        round_trip(&Pin::ALL);
        round_trip(&Tracking::ALL);
        round_trip(&OnAmbiguous::ALL);
        round_trip(&CommitMode::ALL);
        round_trip(&ParamType::ALL);
        let err = serde_json::from_str::<Pin>("\"pinned\"").expect_err("not a pin");
        assert!(err.to_string().contains("unknown variant `pinned`, expected one of `version`, `snapshot`, `listing`, `offsets`"), "{err}");
    }
}
