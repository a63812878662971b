//! The settings catalog: one entry per setting word of the language — a
//! pipeline's or task's setting, a pod setting, a property of a source, sink
//! or effect, a capability line of a kind. Each entry says where the word may
//! stand, the shape of its value, the model field it fills, the section of
//! `docs/reference/language.md` that documents it, and one summary line.
//!
//! Everything that lists these words reads the catalog: the resolver's
//! dispatch (`resolve/`, which matches on [`Id`]), the lists its findings
//! quote (an unknown setting's "did you mean" and the known words), LSP
//! completion and hover (`lsp/words.rs`), the word list of the `TextMate`
//! grammar (`editors/textmate/flow.tmLanguage.json`, checked by
//! `compiler/tests/it/settings.rs`) and the test that each word has its
//! reference section. A setting whose value its shape's reader gives as the
//! model field takes it (an integer, a duration, a date, a flag ...) is
//! stored by its entry (`=> pipeline |d, v, at| ...`): adding such a setting
//! is its entry here, the model field, its reference section and its tests.
//! A setting with checks of its own (a cron line, a time zone, a word list)
//! keeps an arm where the resolver matches on [`Id`].

use std::fmt;
use std::sync::LazyLock;

use super::model::{KindDef, Loc, PipelineDef, Role, TaskDef};
use crate::vocab::Guarantee;

/// Where a setting word may stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// A `pipeline` block.
    Pipeline,
    /// A `task` block.
    Task,
    /// A pipeline or a task: the pod settings (a task's override its
    /// pipeline's).
    Pod,
    /// A `source` declaration.
    Source,
    /// A `sink` declaration.
    Sink,
    /// An `effect` declaration.
    Effect,
    /// A `kind` block (a capability line).
    Kind,
}

impl Place {
    /// The place of a declaration of `role`.
    pub fn of(role: Role) -> Place {
        match role {
            Role::Source => Place::Source,
            Role::Sink => Place::Sink,
            Role::Effect => Place::Effect,
        }
    }
}

/// The shape of a setting's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// No value: the word alone.
    Flag,
    Bool,
    Int,
    Duration,
    Date,
    Str,
    /// A cron line in a string, or `none`.
    Cron,
    /// One of a fixed set of words.
    Word,
    /// A list of words.
    Words,
    /// A field or a tuple of fields.
    Fields,
    /// `{ KEY "value" ... }`.
    Map,
    /// A guarantee (`exactly_once`, ...).
    Guarantee,
    /// The name of a declaration.
    Name,
    /// `marker "NAME"`, `nonempty` or `always`.
    Ready,
}

impl Shape {
    /// How a value of this shape is written, for hover.
    pub fn usage(self) -> &'static str {
        match self {
            Shape::Flag => "no value",
            Shape::Bool => "`true` or `false`",
            Shape::Int => "a whole number",
            Shape::Duration => "a duration (`30s`, `5m`, `2h`, `1d`)",
            Shape::Date => "a date (`2024-01-01`)",
            Shape::Str => "a string",
            Shape::Cron => "a cron line in a string, or `none`",
            Shape::Word => "one word",
            Shape::Words => "a list of words",
            Shape::Fields => "a field or a tuple of fields",
            Shape::Map => "`{ KEY \"value\" ... }`",
            Shape::Guarantee => "a guarantee (`exactly_once`, `at_least_once`, ...)",
            Shape::Name => "the name of a declaration",
            Shape::Ready => "`marker \"NAME\"`, `nonempty` or `always`",
        }
    }
}

/// A setting's value as its shape's reader in `resolve/` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Flag,
    Int(u32),
    Duration(u64),
    Date(String),
    Bool(bool),
    Str(String),
    Guarantee(Guarantee),
}

/// `Parsed::int()` and the like: the value when it is of that variant (a
/// store's code reads the one its entry's shape gives).
macro_rules! parsed_accessors {
    ($($name:ident $variant:ident $ty:ty;)*) => {
        impl Parsed {
            $(fn $name(self) -> Option<$ty> {
                match self {
                    Parsed::$variant(v) => Some(v),
                    _ => None,
                }
            })*
        }
    };
}

parsed_accessors! {
    int Int u32;
    duration Duration u64;
    date Date String;
    bool Bool bool;
    str Str String;
    guarantee Guarantee Guarantee;
}

/// Where the resolver puts a setting's value, per place: the entry's own
/// code, given the value its shape's reader parsed and the setting's
/// location. A place without one reads the setting in an arm of its own in
/// `resolve/` (values with checks of their own).
#[derive(Clone, Copy)]
pub struct Store {
    pub pipeline: Option<fn(&mut PipelineDef, Parsed, Loc)>,
    pub task: Option<fn(&mut TaskDef, Parsed, Loc)>,
    pub kind: Option<fn(&mut KindDef, Parsed, Loc)>,
}

impl Store {
    /// No store of its own: the resolver's arm reads it.
    const OWN: Store = Store {
        pipeline: None,
        task: None,
        kind: None,
    };
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("pipeline", &self.pipeline.is_some())
            .field("task", &self.task.is_some())
            .field("kind", &self.kind.is_some())
            .finish()
    }
}

/// One setting word.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    pub id: Id,
    pub name: &'static str,
    pub places: &'static [Place],
    pub shape: Shape,
    /// The model field it fills.
    pub fills: &'static str,
    /// The heading of its section in `docs/reference/language.md`.
    pub section: &'static str,
    pub summary: &'static str,
    /// Where its value goes, where the entry says it.
    pub store: Store,
}

/// One entry per `Id`: two settings are equal when they are one entry.
impl PartialEq for Setting {
    fn eq(&self, other: &Setting) -> bool {
        self.id == other.id
    }
}

impl Eq for Setting {}

impl Setting {
    /// Whether the word may stand at `place` (a pod setting stands in a
    /// pipeline and in a task).
    pub fn at(&self, place: Place) -> bool {
        self.places.contains(&place)
            || (matches!(place, Place::Pipeline | Place::Task) && self.places.contains(&Place::Pod))
    }
}

macro_rules! settings {
    ($($id:ident $name:literal [$($place:ident)|+] $shape:ident $fills:literal $section:literal $summary:literal
       $(=> $($at:ident $store:expr),+)?;)*) => {
        /// A setting of the catalog (one per entry; the same word at two
        /// places with two meanings is two entries).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Id { $($id,)* }

        /// Every setting, in the order the resolver's findings list them.
        pub const ALL: &[Setting] = &[$(Setting {
            id: Id::$id,
            name: $name,
            places: &[$(Place::$place),+],
            shape: Shape::$shape,
            fills: $fills,
            section: $section,
            summary: $summary,
            store: Store { $($($at: Some($store),)+)? ..Store::OWN },
        },)*];
    };
}

settings! {
    // Pipelines and tasks.
    Schedule "schedule" [Pipeline] Cron "PipelineDef::schedule" "`schedule`"
        "When the pipeline runs: a cron line, or `none` for a pipeline started by hand";
    Start "start" [Pipeline] Date "PipelineDef::start" "`start`"
        "The date of the first interval a scheduled pipeline runs"
        => pipeline |d, v, _| d.start = v.date();
    Timezone "timezone" [Pipeline] Str "PipelineDef::timezone" "`timezone`"
        "The time zone of the schedule (an IANA name; UTC when absent)";
    Catchup "catchup" [Pipeline] Bool "PipelineDef::catchup" "`catchup`"
        "Whether intervals missed while the scheduler was down run later"
        => pipeline |d, v, at| if let Some(b) = v.bool() {
            d.catchup = b;
            d.catchup_loc = Some(at);
        };
    Retries "retries" [Pipeline | Task] Int "PipelineDef::retries, TaskDef::retries" "`retries` and `retry_delay`"
        "How many times the scheduler runs a failed attempt again"
        => pipeline |d, v, at| d.retries = v.int().map(|n| (n, at)),
        task |d, v, at| d.retries = v.int().map(|n| (n, at));
    InternalRetries "internal_retries" [Task] Int "TaskDef::internal_retries" "`retries`, `internal_retries`, `retry_delay`, `timeout`"
        "How many times the task's own code retries within one attempt"
        => task |d, v, at| d.internal_retries = v.int().map(|n| (n, at));
    RetryDelay "retry_delay" [Pipeline | Task] Duration "PipelineDef::retry_delay, TaskDef::retry_delay" "`retries` and `retry_delay`"
        "How long the scheduler waits before the next attempt"
        => pipeline |d, v, _| d.retry_delay = v.duration(),
        task |d, v, _| d.retry_delay = v.duration();
    Timeout "timeout" [Pipeline | Task] Duration "PipelineDef::timeout, TaskDef::timeout" "`timeout`"
        "The lease of an attempt: how long it may run before the scheduler stops it";
    Nondeterministic "nondeterministic" [Task] Flag "TaskDef::nondeterministic" "`nondeterministic`"
        "The task's output may differ between two runs of one interval"
        => task |d, _, at| d.nondeterministic = Some(at);
    OnAmbiguous "on_ambiguous" [Task] Word "TaskDef::on_ambiguous" "`on_ambiguous`"
        "What an attempt does when a write's outcome is unknown: `retry` or `fail`";
    Image "image" [Pipeline] Str "PipelineDef::image" "`image`"
        "The container image the tasks run in";
    Require "require" [Pipeline | Task] Guarantee "PipelineDef::require, TaskDef::require" "`require`"
        "The delivery guarantee every output must keep"
        => pipeline |d, v, at| d.require = v.guarantee().map(|g| (g, at)),
        task |d, v, at| d.require = v.guarantee().map(|g| (g, at));
    State "state" [Pipeline] Name "PipelineDef::state" "`state`"
        "The sink that keeps the pipeline's state (bookmarks, ledgers)";
    // The pod settings, on a pipeline (its tasks' defaults) and on a task.
    Namespace "namespace" [Pod] Str "PodDef::namespace" "Pod settings"
        "The Kubernetes namespace the task's pod runs in";
    ServiceAccount "service_account" [Pod] Str "PodDef::service_account" "Pod settings"
        "The Kubernetes service account of the task's pod";
    Resources "resources" [Pod] Map "PodDef::cpu, PodDef::memory" "Pod settings"
        "The pod's `cpu` and `memory` (requests and limits alike)";
    Labels "labels" [Pod] Map "PodDef::labels" "Pod settings"
        "Kubernetes labels of the task's pod";
    Annotations "annotations" [Pod] Map "PodDef::annotations" "Pod settings"
        "Kubernetes annotations of the task's pod";
    ImagePullPolicy "image_pull_policy" [Pod] Str "PodDef::image_pull_policy" "Pod settings"
        "When Kubernetes pulls the image: `Always`, `IfNotPresent` or `Never`";
    AirflowExecutor "airflow_executor" [Pod] Word "PipelineDef::executor, TaskDef::executor" "`airflow_executor`"
        "How Airflow runs the task: `local` or `kubernetes`";
    ArgoTtl "argo_ttl" [Pipeline] Duration "PipelineDef::argo_ttl" "`argo_ttl` and `argo_pod_gc`"
        "How long Argo keeps a finished workflow"
        => pipeline |d, v, _| d.argo_ttl = v.duration();
    ArgoPodGc "argo_pod_gc" [Pipeline] Str "PipelineDef::argo_pod_gc" "`argo_ttl` and `argo_pod_gc`"
        "When Argo deletes the workflow's pods, or `none`";
    // Sources, sinks and effects.
    Immutable "immutable" [Source] Flag "DeclDef::immutable" "`immutable` / `mutable`"
        "The data of an interval never changes once it has landed";
    Mutable "mutable" [Source] Flag "DeclDef::immutable" "`immutable` / `mutable`"
        "The data may change after it landed: a read must pin what it saw";
    Pin "pin" [Source] Word "DeclDef::pin" "`pin`"
        "How a read pins what it reads, when the read names none";
    Identity "identity" [Source] Fields "DeclDef::identity" "`identity`"
        "The fields that tell one record from another";
    Cursor "cursor" [Source] Fields "DeclDef::cursor" "`cursor` (flowc 0.3)"
        "The field an incremental read follows";
    Fields "fields" [Source | Sink] Words "DeclDef::fields" "`fields`"
        "The fields of a record";
    Commit "commit" [Source] Word "DeclDef::commit" "`commit`"
        "When a read's offsets are committed";
    Coordinator "coordinator" [Source | Sink] Str "DeclDef::coordinator" "`coordinator`"
        "The transaction coordinator's system (overriding the kind's)";
    Ready "ready" [Source] Ready "DeclDef::ready" "`ready`"
        "When an interval's input is complete enough to read";
    Secret "secret" [Source | Sink | Effect] Str "DeclDef::secret" "`secret`"
        "The Kubernetes Secret that holds the credentials";
    // The capability lines of a kind.
    Roles "roles" [Kind] Words "KindDef::roles" "`kind`"
        "What a declaration of the kind may be: `source`, `sink`, `effect`";
    Pins "pins" [Kind] Words "KindDef::pins" "`kind`"
        "The pins a read of the kind can take";
    Writes "writes" [Kind] Words "KindDef::writes" "`kind`"
        "The write modes the kind supports";
    Transactional "transactional" [Kind] Flag "KindDef::transactional" "`kind`"
        "Several statements and tables commit in one transaction"
        => kind |d, _, _| d.transactional = true;
    Atomic "atomic" [Kind] Flag "KindDef::atomic" "`kind`"
        "Each commit of one table is atomic"
        => kind |d, _, _| d.atomic = true;
    Versioned "versioned" [Kind] Flag "KindDef::versioned" "`kind`"
        "Every commit is a version a reader can pin"
        => kind |d, _, _| d.versioned = true;
    Fenced "fenced" [Kind] Flag "KindDef::fenced" "`kind`"
        "The sink refuses a write from an interval older than the row's last writer"
        => kind |d, _, _| d.fenced = true;
    KindState "state" [Kind] Flag "KindDef::state" "`kind`"
        "flowc's runtime can keep its state in this system"
        => kind |d, _, _| d.state = true;
    Offsets "offsets" [Kind] Flag "KindDef::offsets" "`kind`"
        "Readers track offsets"
        => kind |d, _, _| d.offsets = true;
    Commits "commits" [Kind] Words "KindDef::commits" "`kind`"
        "The offset commit modes the kind offers";
    KindCoordinator "coordinator" [Kind] Str "KindDef::coordinator" "`kind`"
        "The transaction coordinator's system"
        => kind |d, v, _| d.coordinator = v.str();
    Idempotency "idempotency" [Kind] Word "KindDef::idempotency_key" "`kind`"
        "For effects: whether the receiver deduplicates on a key flowc sends";
    ConditionalUpsert "conditional_upsert" [Kind] Flag "KindDef::conditional_upsert" "`kind`"
        "An upsert can keep the stored row unless a version column is greater"
        => kind |d, _, _| d.conditional_upsert = true;
    SerializedReplace "serialized_replace" [Kind] Flag "KindDef::serialized_replace" "`kind`"
        "Two live replaces of one partition never interleave"
        => kind |d, _, _| d.serialized_replace = true;
    Lossy "lossy" [Kind] Flag "KindDef::lossy" "`kind`"
        "The system may acknowledge a write it later drops"
        => kind |d, _, _| d.lossy = true;
    IdempotentProducer "idempotent_producer" [Kind] Flag "KindDef::idempotent_producer" "`kind`"
        "The client deduplicates its own resends within one attempt"
        => kind |d, _, _| d.idempotent_producer = true;
    UnenforcedKey "unenforced_key" [Kind] Flag "KindDef::unenforced_key" "`kind`"
        "The system accepts a declared primary key but never enforces it"
        => kind |d, _, _| d.unenforced_key = true;
    EventualUpsert "eventual_upsert" [Kind] Flag "KindDef::eventual_upsert" "`kind`"
        "An upsert adds a row version that only background merges remove"
        => kind |d, _, _| d.eventual_upsert = true;
    DeduplicatesInserts "deduplicates_inserts" [Kind] Flag "KindDef::deduplicates_inserts" "`kind`"
        "The system silently drops an insert identical to a recent one"
        => kind |d, _, _| d.deduplicates_inserts = true;
}

/// The settings that may stand at `place`, in catalog order.
pub fn at(place: Place) -> impl Iterator<Item = &'static Setting> {
    ALL.iter().filter(move |s| s.at(place))
}

/// The setting `name` at `place`, if there is one.
pub fn find(place: Place, name: &str) -> Option<&'static Setting> {
    at(place).find(|s| s.name == name)
}

/// The property `name` of a source, sink or effect (of any of the three
/// roles), if it is one; a declaration's other words are its kind's
/// parameters.
pub fn property(name: &str) -> Option<&'static Setting> {
    ALL.iter().find(|s| {
        s.name == name
            && [Place::Source, Place::Sink, Place::Effect]
                .iter()
                .any(|p| s.at(*p))
    })
}

/// The names of the settings at `place`, in catalog order (for findings,
/// which quote the list).
pub fn names(place: Place) -> &'static [&'static str] {
    fn collect(place: Place) -> Vec<&'static str> {
        at(place).map(|s| s.name).collect()
    }
    static PIPELINE: LazyLock<Vec<&str>> = LazyLock::new(|| collect(Place::Pipeline));
    static TASK: LazyLock<Vec<&str>> = LazyLock::new(|| collect(Place::Task));
    static POD: LazyLock<Vec<&str>> = LazyLock::new(|| collect(Place::Pod));
    static SOURCE: LazyLock<Vec<&str>> = LazyLock::new(|| collect(Place::Source));
    static SINK: LazyLock<Vec<&str>> = LazyLock::new(|| collect(Place::Sink));
    static EFFECT: LazyLock<Vec<&str>> = LazyLock::new(|| collect(Place::Effect));
    static KIND: LazyLock<Vec<&str>> = LazyLock::new(|| collect(Place::Kind));
    match place {
        Place::Pipeline => &PIPELINE,
        Place::Task => &TASK,
        Place::Pod => &POD,
        Place::Source => &SOURCE,
        Place::Sink => &SINK,
        Place::Effect => &EFFECT,
        Place::Kind => &KIND,
    }
}

/// Every setting word once, in catalog order (the grammar's list).
pub fn words() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::with_capacity(ALL.len());
    for s in ALL {
        if !out.contains(&s.name) {
            out.push(s.name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{at, find, names, Id, Place, Shape, ALL};

    /// An entry stores its value only at a place its word may stand, and
    /// only when the resolver has a reader for its shape (`args::parsed`).
    #[test]
    fn a_stored_setting_stands_where_it_is_stored_and_has_a_read_shape() {
        let mut stored = 0;
        for s in ALL {
            let places = [
                (s.store.pipeline.is_some(), Place::Pipeline),
                (s.store.task.is_some(), Place::Task),
                (s.store.kind.is_some(), Place::Kind),
            ];
            for (has, place) in places {
                assert!(!has || s.at(place), "{} stored at {place:?}", s.name);
            }
            if places.iter().any(|(has, _)| *has) {
                stored += 1;
                assert!(
                    matches!(
                        s.shape,
                        Shape::Flag
                            | Shape::Int
                            | Shape::Duration
                            | Shape::Date
                            | Shape::Bool
                            | Shape::Str
                            | Shape::Guarantee
                    ),
                    "{} is stored but its shape {:?} has no reader",
                    s.name,
                    s.shape
                );
            }
        }
        assert!(
            stored >= 20,
            "only {stored} settings are stored by their entry"
        );
    }

    #[test]
    fn a_word_names_one_setting_at_each_place() {
        for place in [
            Place::Pipeline,
            Place::Task,
            Place::Source,
            Place::Sink,
            Place::Effect,
            Place::Kind,
        ] {
            let ws = names(place);
            for (i, w) in ws.iter().enumerate() {
                assert!(!ws[..i].contains(w), "{w} twice at {place:?}");
            }
        }
        assert_eq!(
            find(Place::Kind, "state").map(|s| s.id),
            Some(Id::KindState)
        );
        assert_eq!(
            find(Place::Pipeline, "state").map(|s| s.id),
            Some(Id::State)
        );
        assert_eq!(find(Place::Task, "state"), None);
        assert!(at(Place::Task).any(|s| s.id == Id::Namespace));
        assert!(ALL
            .iter()
            .all(|s| !s.summary.is_empty() && !s.section.is_empty()));
    }
}
