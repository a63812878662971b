//! Property tests over generated syntax trees: proptest builds a valid
//! [`ast::File`] (or a few, joined by `use`), prints it as `.flow` text with a
//! random but legal layout (spacing, comments, blank lines, line breaks where
//! the grammar ignores them, CRLF), and checks that
//! - the text parses, with no finding, back to the generated tree;
//! - `check` and everything after it finishes quickly, without panicking,
//!   with every finding's spans inside its file;
//! - `fmt` accepts it, is idempotent, and keeps the tree and the findings.
//!
//! The case count is proptest's default (256, or `PROPTEST_CASES`); a
//! failure is shrunk and its seed saved under `proptest-regressions/`.

use std::time::{Duration, Instant};

use flowc::invariants;
use flowc::span::Span;
use flowc::syntax::ast::{
    After, Allow, Decl, Emit, Env, File, Ident, Item, KeyExpr, KeyPart, KeyStmt, KindDecl,
    ParamDecl, PinClause, Pipeline, Read, Role, Run, Setting, Str, Task, TaskStmt, TermExpr, Use,
    Value, Via, Write, WriteModeExpr,
};
use proptest::prelude::*;
use proptest::sample::select;

const S: Span = Span { start: 0, end: 0 };

/// Every word the grammar treats as a keyword somewhere (`kw_*` in
/// grammar/flow.pest): generated names avoid them all, so a name never
/// starts a statement or a clause.
const KEYWORDS: &[&str] = &[
    "use",
    "kind",
    "source",
    "sink",
    "effect",
    "pipeline",
    "task",
    "param",
    "after",
    "read",
    "write",
    "key",
    "emit",
    "run",
    "env",
    "allow",
    "pinned",
    "unpinned",
    "commit",
    "via",
    "outbox",
    "idempotency_key",
    "require",
    "replace",
    "partition",
    "append",
    "ledger",
    "because",
    "command",
    "image",
];

fn ident(name: impl Into<String>) -> Ident {
    Ident {
        name: name.into(),
        span: S,
    }
}

fn text(value: impl Into<String>) -> Str {
    Str {
        value: value.into(),
        span: S,
        raw: None,
    }
}

// ---------------------------------------------------------------------------
// Strategies

/// A name: mostly from a small pool, so that references resolve, sometimes
/// any identifier that is not a keyword.
fn name() -> impl Strategy<Value = Ident> {
    const POOL: &[&str] = &[
        "a", "b", "orders", "raw", "totals", "t1", "t2", "day", "order_id", "id", "input", "start",
        "none", "_x", "Upper9",
    ];
    let first: Vec<char> = ('a'..='z').chain('A'..='Z').chain(['_']).collect();
    let rest: Vec<char> = first.iter().copied().chain('0'..='9').collect();
    let random = (select(first), prop::collection::vec(select(rest), 0..8))
        .prop_map(|(c, cs)| std::iter::once(c).chain(cs).collect::<String>())
        .prop_filter("not a keyword", |s| !KEYWORDS.contains(&s.as_str()));
    prop_oneof![
        3 => select(POOL).prop_map(String::from),
        1 => random,
    ]
    .prop_map(ident)
}

/// A name from a pool of meaningful words, or any name.
fn word(pool: &'static [&'static str]) -> impl Strategy<Value = Ident> {
    prop_oneof![3 => select(pool).prop_map(ident), 1 => name()]
}

/// A string's value: any characters, or a realistic one.
fn string() -> impl Strategy<Value = Str> {
    const POOL: &[&str] = &[
        "",
        "0 2 * * *",
        "@daily",
        "UTC",
        "Europe/Paris",
        "lake/raw/{interval.start}/",
        "lake/{interval.stat}/{{literal}}",
        "analytics.orders",
        "https://example.com/hook",
        "python",
        "b.flow",
    ];
    prop_oneof![
        2 => select(POOL).prop_map(String::from),
        1 => prop::collection::vec(any::<char>(), 0..12).prop_map(String::from_iter),
    ]
    .prop_map(text)
}

/// A token starting with a digit, valid as a literal or not.
fn number() -> impl Strategy<Value = Ident> {
    const POOL: &[&str] = &[
        "0",
        "3",
        "4294967295",
        "99999999999",
        "2026-01-01",
        "2026-13-01",
        "30m",
        "1h30m",
        "45s",
        "2d",
        "30min",
        "1h1h",
        "12:30",
        "1.5",
        "2.-",
        "0_x",
    ];
    prop_oneof![
        3 => select(POOL).prop_map(String::from),
        1 => (0u64..100_000).prop_map(|n| n.to_string()),
    ]
    .prop_map(ident)
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        string().prop_map(Value::Str),
        number().prop_map(Value::Number),
        name().prop_map(Value::Ident),
        select(KEYWORDS).prop_map(|k| Value::Ident(ident(k))),
    ]
}

/// A value: a scalar, a list of scalars, or a tuple of two or more items
/// (a one-item tuple is its item), tuples nesting.
fn value() -> impl Strategy<Value = Value> {
    let tuple = scalar().prop_recursive(2, 8, 3, |inner| {
        prop::collection::vec(inner, 2..4).prop_map(|v| Value::Tuple(v, S))
    });
    prop_oneof![
        4 => scalar(),
        1 => prop::collection::vec(scalar(), 0..4).prop_map(|v| Value::List(v, S)),
        1 => prop::collection::vec(tuple, 2..4).prop_map(|v| Value::Tuple(v, S)),
    ]
}

fn setting(names: &'static [&'static str]) -> impl Strategy<Value = Setting> {
    (word(names), prop::collection::vec(value(), 0..4)).prop_map(|(name, args)| Setting {
        name,
        args,
        span: S,
    })
}

fn term() -> impl Strategy<Value = TermExpr> {
    prop_oneof![
        prop::collection::vec(
            word(&["input", "interval", "start", "order_id", "day"]),
            1..4
        )
        .prop_map(|path| TermExpr {
            path,
            call: None,
            span: S,
        }),
        (
            word(&["hash", "now", "uuid"]),
            prop::option::of(word(&["input"]))
        )
            .prop_map(|(f, arg)| TermExpr {
                path: vec![f],
                call: Some(arg),
                span: S,
            }),
    ]
}

fn key_part() -> impl Strategy<Value = KeyPart> {
    (prop::option::of(name()), term()).prop_map(|(column, term)| KeyPart {
        column,
        term,
        span: S,
    })
}

fn key_expr() -> impl Strategy<Value = KeyExpr> {
    prop::collection::vec(key_part(), 1..4).prop_map(|parts| KeyExpr { parts, span: S })
}

fn allow() -> impl Strategy<Value = Allow> {
    (
        word(&["FL101", "FL202", "FL304", "FL601", "FL999"]),
        prop::option::of(string()),
    )
        .prop_map(|(code, reason)| Allow {
            code,
            reason,
            span: S,
        })
}

fn task_stmt() -> impl Strategy<Value = TaskStmt> {
    let after = prop::collection::vec(word(&["t1", "t2", "load"]), 1..3)
        .prop_map(|tasks| TaskStmt::After(After { tasks, span: S }));
    let pin = prop_oneof![
        word(&["version", "snapshot", "listing", "offsets", "none"]).prop_map(PinClause::Pinned),
        Just(PinClause::Unpinned(S)),
    ];
    let read = (
        name(),
        prop::collection::vec(pin, 0..2),
        prop::collection::vec(
            word(&["auto", "before_write", "after_write", "in_transaction"]),
            0..2,
        ),
    )
        .prop_map(|(source, pins, commits)| {
            TaskStmt::Read(Read {
                source,
                pins,
                commits,
                lookbacks: vec![],
                inclusive: vec![],
                span: S,
            })
        });
    let key = key_expr().prop_map(|key| TaskStmt::Key(KeyStmt { key, span: S }));
    let mode = prop_oneof![
        3 => word(&[
            "upsert",
            "append",
            "replace",
            "overwrite",
            "check_then_append",
            "conditional_commit",
            "transactional",
        ])
        .prop_map(WriteModeExpr::Word),
        1 => key_part().prop_map(|p| WriteModeExpr::ReplacePartition(p, S)),
        1 => Just(WriteModeExpr::AppendLedger(S)),
    ];
    let write = (
        name(),
        mode,
        prop::collection::vec(key_expr(), 0..2),
        prop::collection::vec(
            word(&["effectively_once", "at_least_once", "exactly_once"]),
            0..2,
        ),
    )
        .prop_map(|(sink, mode, keys, requires)| {
            TaskStmt::Write(Box::new(Write {
                sink,
                mode,
                keys,
                requires,
                newest: vec![],
                txns: vec![],
                span: S,
            }))
        });
    let via = prop_oneof![
        prop::option::of(name()).prop_map(|n| Via::Outbox(n, S)),
        key_expr().prop_map(|k| Via::IdempotencyKey(k, S)),
    ];
    let emit = (
        name(),
        prop::option::of(via),
        prop::option::of(key_expr()),
        prop::option::of(word(&["at_least_once", "effectively_once"])),
    )
        .prop_map(|(effect, via, key, require)| {
            // Only an outbox effect carries its own key.
            let key = key.filter(|_| matches!(via, Some(Via::Outbox(..))));
            TaskStmt::Emit(Box::new(Emit {
                effect,
                via,
                key,
                require,
                span: S,
            }))
        });
    let run = (
        prop::option::of(string()),
        prop::collection::vec(string(), 0..3),
    )
        .prop_map(|(image, command)| {
            TaskStmt::Run(Run {
                image,
                command,
                command_span: S,
                span: S,
            })
        });
    let env = prop::collection::vec((name(), string()), 0..3)
        .prop_map(|entries| TaskStmt::Env(Env { entries, span: S }));
    let setting = setting(&["retries", "timeout", "image", "pool"]).prop_map(TaskStmt::Setting);
    prop_oneof![
        after,
        read,
        key,
        write,
        emit,
        run,
        env,
        allow().prop_map(TaskStmt::Allow),
        setting,
    ]
}

fn task() -> impl Strategy<Value = Task> {
    (
        word(&["t1", "t2", "load"]),
        prop::collection::vec(task_stmt(), 0..6),
    )
        .prop_map(|(name, stmts)| Task {
            name,
            stmts,
            span: S,
        })
}

fn item() -> impl Strategy<Value = Item> {
    let use_item = word(&["b.flow", "c.flow", "a.flow", "missing.flow"]).prop_map(|p| {
        Item::Use(Use {
            path: text(p.name),
            span: S,
        })
    });
    let param = (
        name(),
        word(&["string", "int", "bool", "duration", "key"]),
        any::<bool>(),
    )
        .prop_map(|(name, ty, optional)| ParamDecl {
            name,
            ty,
            optional,
            span: S,
        });
    let kind = (
        name(),
        prop::collection::vec(
            setting(&[
                "roles",
                "pins",
                "writes",
                "transactional",
                "offsets",
                "commits",
                "coordinator",
                "idempotency",
            ]),
            0..5,
        ),
        prop::collection::vec(param, 0..3),
    )
        .prop_map(|(name, lines, params)| {
            Item::Kind(KindDecl {
                name,
                lines,
                params,
                span: S,
            })
        });
    let decl = (
        select(&[Role::Source, Role::Sink, Role::Effect][..]),
        name(),
        word(&[
            "files",
            "postgres_table",
            "sqlite_table",
            "delta_table",
            "kafka_topic",
            "webhook",
            "slack_message",
        ]),
        prop::collection::vec(
            setting(&[
                "path",
                "table",
                "primary_key",
                "immutable",
                "identity",
                "fields",
                "pin",
                "commit",
                "topic",
                "url",
                "channel",
                "coordinator",
            ]),
            0..5,
        ),
    )
        .prop_map(|(role, name, kind, props)| {
            Item::Decl(Decl {
                role,
                role_span: S,
                name,
                kind,
                props,
                span: S,
            })
        });
    let pipeline = (
        name(),
        prop::collection::vec(
            setting(&[
                "schedule", "start", "timezone", "catchup", "retries", "timeout", "image",
                "require",
            ]),
            0..4,
        ),
        prop::collection::vec(allow(), 0..2),
        prop::collection::vec(task(), 0..3),
    )
        .prop_map(|(name, settings, allows, tasks)| {
            Item::Pipeline(Pipeline {
                name,
                settings,
                params: vec![],
                allows,
                tasks,
                span: S,
            })
        });
    prop_oneof![1 => use_item, 1 => kind, 4 => decl, 3 => pipeline]
}

fn file() -> impl Strategy<Value = File> {
    prop::collection::vec(item(), 0..6).prop_map(|items| File { items })
}

/// Any valid file, or a mostly meaningful program.
fn any_file() -> impl Strategy<Value = File> {
    prop_oneof![file(), program()]
}

/// A setting with the given values.
fn set(name: &str, args: Vec<Value>) -> Setting {
    Setting {
        name: ident(name),
        args,
        span: S,
    }
}

fn v_str(s: &str) -> Value {
    Value::Str(text(s))
}

fn v_word(s: &str) -> Value {
    Value::Ident(ident(s))
}

/// `[column =] a.b.c`
fn part(column: Option<&str>, path: &[&str]) -> KeyPart {
    KeyPart {
        column: column.map(ident),
        term: TermExpr {
            path: path.iter().map(|p| ident(*p)).collect(),
            call: None,
            span: S,
        },
        span: S,
    }
}

/// `f()` or `f(arg)`
fn call(f: &str, arg: Option<&str>) -> KeyPart {
    let mut p = part(None, &[f]);
    p.term.call = Some(arg.map(ident));
    p
}

/// A mostly meaningful program: declarations of the stdlib's kinds with
/// their parameters, and a pipeline whose tasks read, write and emit what
/// is declared, with pins, keys, modes and effects drawn at random. Such
/// files get past name resolution into the guarantee rules and, when clean,
/// code generation.
fn program() -> impl Strategy<Value = File> {
    const SOURCES: &[&str] = &[
        "files",
        "postgres_table",
        "sqlite_table",
        "kafka_topic",
        "delta_table",
    ];
    const EFFECTS: &[&str] = &["webhook", "slack_message", "http_request"];
    let data_decl = (
        select(SOURCES),
        any::<[bool; 4]>(),
        select(&["auto", "before_write", "after_write", "in_transaction"][..]),
    )
        .prop_map(|(kind, flags, commit)| {
            let mut props = match kind {
                "files" => vec![set("path", vec![v_str("lake/{interval.start}/")])],
                "kafka_topic" => vec![set("topic", vec![v_str("events")])],
                "delta_table" => vec![set("location", vec![v_str("s3://lake/t")])],
                _ => vec![set("table", vec![v_str("analytics.t")])],
            };
            if flags[0] {
                props.push(set("immutable", vec![]));
            }
            if flags[1] {
                props.push(set("identity", vec![v_word("id")]));
            }
            if flags[2] && kind != "files" && kind != "kafka_topic" {
                props.push(set("primary_key", vec![v_word("id")]));
            }
            if flags[3] {
                props.push(set(
                    "fields",
                    vec![Value::List(
                        vec![v_word("id"), v_word("amount"), v_word("day")],
                        S,
                    )],
                ));
            }
            if kind == "kafka_topic" && flags[0] {
                props.push(set("commit", vec![v_word(commit)]));
            }
            (kind, props)
        });
    let decls = (
        prop::collection::vec(data_decl.clone(), 1..3),
        prop::collection::vec(data_decl, 1..3),
        prop::collection::vec(select(EFFECTS), 0..2),
    );
    let task = (
        0usize..4,
        select(
            &[
                "", "none", "version", "snapshot", "listing", "offsets", "unpinned",
            ][..],
        ),
        0usize..5,
        0usize..4,
        0usize..9,
        0usize..4,
        0usize..3,
        any::<bool>(),
    );
    let pipeline = (
        prop::collection::vec(task, 1..4),
        0u32..4,
        select(&["", "effectively_once", "at_least_once"][..]),
        any::<bool>(),
    );
    (decls, pipeline).prop_map(
        |((sources, sinks, effects), (tasks, retries, require, catchup))| {
            let mut items = Vec::new();
            let mut readable = Vec::new();
            for (i, (kind, props)) in sources.into_iter().enumerate() {
                let name = format!("s{i}");
                readable.push(name.clone());
                items.push(Item::Decl(Decl {
                    role: Role::Source,
                    role_span: S,
                    name: ident(&name),
                    kind: ident(kind),
                    props,
                    span: S,
                }));
            }
            let mut sink_names = Vec::new();
            for (i, (kind, mut props)) in sinks.into_iter().enumerate() {
                props.retain(|p| {
                    !matches!(p.name.name.as_str(), "immutable" | "identity" | "commit")
                });
                let name = format!("o{i}");
                sink_names.push(name.clone());
                readable.push(name.clone());
                items.push(Item::Decl(Decl {
                    role: Role::Sink,
                    role_span: S,
                    name: ident(&name),
                    kind: ident(kind),
                    props,
                    span: S,
                }));
            }
            let mut effect_names = Vec::new();
            for (i, kind) in effects.into_iter().enumerate() {
                let name = format!("e{i}");
                effect_names.push(name.clone());
                let param = if kind == "slack_message" {
                    set("channel", vec![v_str("#ops")])
                } else {
                    set("url", vec![v_str("https://example.com/hook")])
                };
                items.push(Item::Decl(Decl {
                    role: Role::Effect,
                    role_span: S,
                    name: ident(&name),
                    kind: ident(kind),
                    props: vec![param],
                    span: S,
                }));
            }
            let mut settings = vec![
                set("schedule", vec![v_str("@daily")]),
                set("start", vec![Value::Number(ident("2026-01-01"))]),
                set("retries", vec![Value::Number(ident(retries.to_string()))]),
            ];
            if !require.is_empty() {
                settings.push(set("require", vec![v_word(require)]));
            }
            if catchup {
                settings.push(set("catchup", vec![v_word("true")]));
            }
            let keys = [
                KeyExpr {
                    parts: vec![part(None, &["input", "id"])],
                    span: S,
                },
                KeyExpr {
                    parts: vec![call("hash", Some("input"))],
                    span: S,
                },
                KeyExpr {
                    parts: vec![
                        part(None, &["input", "id"]),
                        part(Some("day"), &["interval", "start"]),
                    ],
                    span: S,
                },
                KeyExpr {
                    parts: vec![call("now", None)],
                    span: S,
                },
            ];
            let tasks = tasks
                .into_iter()
                .enumerate()
                .map(|(i, (src, pin, key, snk, mode, emit, via, after))| {
                    let mut stmts = Vec::new();
                    if after && i > 0 {
                        stmts.push(TaskStmt::After(After {
                            tasks: vec![ident(format!("t{}", i - 1))],
                            span: S,
                        }));
                    }
                    let pins = match pin {
                        "" => vec![],
                        "unpinned" => vec![PinClause::Unpinned(S)],
                        p => vec![PinClause::Pinned(ident(p))],
                    };
                    stmts.push(TaskStmt::Read(Read {
                        source: ident(&readable[src % readable.len()]),
                        pins,
                        commits: vec![],
                        lookbacks: vec![],
                        inclusive: vec![],
                        span: S,
                    }));
                    if key < keys.len() {
                        stmts.push(TaskStmt::Key(KeyStmt {
                            key: keys[key].clone(),
                            span: S,
                        }));
                    }
                    if snk < sink_names.len() {
                        let mode = match mode {
                            0 => WriteModeExpr::Word(ident("upsert")),
                            1 => WriteModeExpr::Word(ident("append")),
                            2 => WriteModeExpr::Word(ident("overwrite")),
                            3 => WriteModeExpr::Word(ident("transactional")),
                            4 => WriteModeExpr::Word(ident("check_then_append")),
                            5 => WriteModeExpr::Word(ident("conditional_commit")),
                            6 => WriteModeExpr::AppendLedger(S),
                            7 => WriteModeExpr::ReplacePartition(
                                part(Some("day"), &["interval", "start"]),
                                S,
                            ),
                            _ => WriteModeExpr::Word(ident("replace")),
                        };
                        stmts.push(TaskStmt::Write(Box::new(Write {
                            sink: ident(&sink_names[snk]),
                            mode,
                            keys: vec![],
                            requires: vec![],
                            newest: vec![],
                            txns: vec![],
                            span: S,
                        })));
                    }
                    if emit < effect_names.len() {
                        let via = match via {
                            0 => None,
                            1 => Some(Via::Outbox(None, S)),
                            _ => Some(Via::IdempotencyKey(keys[0].clone(), S)),
                        };
                        stmts.push(TaskStmt::Emit(Box::new(Emit {
                            effect: ident(&effect_names[emit]),
                            via,
                            key: None,
                            require: None,
                            span: S,
                        })));
                    }
                    stmts.push(TaskStmt::Run(Run {
                        image: None,
                        command: vec![text("python"), text("-m"), text(format!("jobs.t{i}"))],
                        command_span: S,
                        span: S,
                    }));
                    Task {
                        name: ident(format!("t{i}")),
                        stmts,
                        span: S,
                    }
                })
                .collect();
            items.push(Item::Pipeline(Pipeline {
                name: ident("p"),
                settings,
                params: vec![],
                allows: vec![],
                tasks,
                span: S,
            }));
            File { items }
        },
    )
}

/// Random bytes that steer the layout of the printed text.
fn layout() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 1..64)
}

// ---------------------------------------------------------------------------
// Printing

/// Prints a tree as `.flow` text; every choice of layout comes from the
/// layout bytes, each choice legal where it is made.
struct Printer<'a> {
    out: String,
    layout: &'a [u8],
    at: usize,
    newline: &'static str,
}

impl<'a> Printer<'a> {
    fn new(layout: &'a [u8]) -> Self {
        let mut p = Printer {
            out: String::new(),
            layout,
            at: 0,
            newline: "\n",
        };
        if p.choose(8) == 1 {
            p.newline = "\r\n";
        }
        if p.choose(16) == 1 {
            p.out.push('\u{feff}');
        }
        p
    }

    /// A choice in `0..n`, cycling over the layout bytes; 0 is the plain layout
    /// (all there is when there are no layout bytes).
    fn choose(&mut self, n: u8) -> u8 {
        let Some(&b) = self.layout.get(self.at % self.layout.len().max(1)) else {
            return 0;
        };
        self.at += 1;
        b.wrapping_add(self.at as u8).wrapping_mul(157) % n
    }

    fn w(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Space between two tokens on one line.
    fn sp(&mut self) {
        let s = match self.choose(8) {
            1 => "  ",
            2 => "\t",
            3 => "   ",
            _ => " ",
        };
        self.w(s);
    }

    /// Where the grammar ignores newlines (in brackets, after a comma): a
    /// space, or a line break, maybe after a comment.
    fn gap(&mut self) {
        match self.choose(6) {
            1 => {
                let nl = self.newline;
                self.w(nl);
                self.w("    ");
            }
            2 => {
                let nl = self.newline;
                self.w(" # in a gap");
                self.w(nl);
            }
            _ => self.sp(),
        }
    }

    /// The end of a statement: maybe a comment, one or more line breaks,
    /// maybe a comment on a line of its own.
    fn eol(&mut self, indent: usize) {
        if self.choose(6) == 1 {
            self.w(" #trailing comment");
        }
        let nl = self.newline;
        self.w(nl);
        match self.choose(8) {
            1 => self.w(nl),
            2 => {
                self.indent(indent);
                self.w("## own-line comment ");
                self.w(nl);
            }
            _ => {}
        }
    }

    fn indent(&mut self, level: usize) {
        let n = match self.choose(8) {
            1 => 0,
            2 => level * 4 + 1,
            _ => level * 2,
        };
        self.w(&" ".repeat(n));
    }

    fn ident(&mut self, i: &Ident) {
        self.w(&i.name);
    }

    fn string(&mut self, s: &Str) {
        let mut q = String::from("\"");
        for c in s.value.chars() {
            match c {
                '"' => q.push_str("\\\""),
                '\\' => q.push_str("\\\\"),
                '\n' => q.push_str("\\n"),
                '\t' => q.push_str("\\t"),
                '\r' => q.push_str("\\u{D}"),
                c => q.push(c),
            }
        }
        q.push('"');
        self.w(&q);
    }

    /// Elements between brackets, separated by commas, with gaps.
    fn group<T>(&mut self, open: &str, close: &str, items: &[T], mut f: impl FnMut(&mut Self, &T)) {
        self.w(open);
        if self.choose(3) == 1 {
            self.gap();
        }
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.w(",");
                self.gap();
            }
            f(self, x);
        }
        if !items.is_empty() && self.choose(4) == 1 {
            self.w(",");
            self.gap();
        }
        self.w(close);
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Str(s) => self.string(s),
            Value::Number(i) | Value::Ident(i) => self.ident(i),
            Value::List(items, _) => self.group("[", "]", items, Self::value),
            Value::Tuple(items, _) => self.group("(", ")", items, Self::value),
            // The generator makes no pod blocks (flowc 0.2); printed for completeness.
            Value::Map(entries, _) => {
                self.w("{");
                for (k, v) in entries {
                    self.w(" ");
                    self.string(k);
                    self.w(" ");
                    self.string(v);
                }
                self.w(" }");
            }
        }
    }

    fn setting(&mut self, s: &Setting, indent: usize) {
        self.indent(indent);
        self.ident(&s.name);
        for (i, v) in s.args.iter().enumerate() {
            // Values follow each other, or are separated by a comma
            // (after which a line may break).
            if i > 0 && self.choose(3) == 1 {
                self.w(",");
                self.gap();
            } else {
                self.sp();
            }
            self.value(v);
        }
        self.eol(indent);
    }

    fn open(&mut self, indent: usize) {
        self.sp();
        self.w("{");
        self.eol(indent + 1);
    }

    fn close(&mut self, indent: usize) {
        self.indent(indent);
        self.w("}");
    }

    fn term(&mut self, t: &TermExpr) {
        for (i, p) in t.path.iter().enumerate() {
            if i > 0 {
                self.w(".");
            }
            self.ident(p);
        }
        if let Some(arg) = &t.call {
            self.w("(");
            if let Some(a) = arg {
                self.ident(a);
            }
            self.w(")");
        }
    }

    fn key_part(&mut self, p: &KeyPart) {
        if let Some(c) = &p.column {
            self.ident(c);
            self.sp();
            self.w("=");
            self.sp();
        }
        if self.choose(10) == 1 {
            self.w("(");
            self.term(&p.term);
            self.w(")");
        } else {
            self.term(&p.term);
        }
    }

    fn key_expr(&mut self, k: &KeyExpr) {
        if k.parts.len() == 1 && self.choose(4) != 1 {
            self.key_part(&k.parts[0]);
        } else {
            self.group("(", ")", &k.parts, Self::key_part);
        }
    }

    fn allow(&mut self, a: &Allow, indent: usize) {
        self.indent(indent);
        self.w("allow ");
        self.ident(&a.code);
        if let Some(r) = &a.reason {
            self.w(" because ");
            self.string(r);
        }
        self.eol(indent);
    }

    fn task_stmt(&mut self, s: &TaskStmt) {
        let indent = 2;
        if let TaskStmt::Setting(s) = s {
            return self.setting(s, indent);
        }
        if let TaskStmt::Allow(a) = s {
            return self.allow(a, indent);
        }
        self.indent(indent);
        match s {
            TaskStmt::After(a) => {
                self.w("after");
                for (i, t) in a.tasks.iter().enumerate() {
                    if i > 0 {
                        self.w(",");
                        self.gap();
                    } else {
                        self.sp();
                    }
                    self.ident(t);
                }
            }
            TaskStmt::Read(r) => {
                self.w("read");
                self.sp();
                self.ident(&r.source);
                for p in &r.pins {
                    self.sp();
                    match p {
                        PinClause::Pinned(i) => {
                            self.w("pinned");
                            self.sp();
                            self.ident(i);
                        }
                        PinClause::Unpinned(_) => self.w("unpinned"),
                        PinClause::Cursor(_) => self.w("cursor"),
                    }
                }
                for c in &r.commits {
                    self.sp();
                    self.w("commit");
                    self.sp();
                    self.ident(c);
                }
            }
            TaskStmt::Key(k) => {
                self.w("key");
                self.sp();
                self.key_expr(&k.key);
            }
            TaskStmt::Write(w) => {
                self.w("write");
                self.sp();
                self.ident(&w.sink);
                self.sp();
                match &w.mode {
                    WriteModeExpr::Word(i) => self.ident(i),
                    WriteModeExpr::ReplacePartition(p, _) => {
                        self.w("replace");
                        self.sp();
                        self.w("partition");
                        self.sp();
                        self.key_part(p);
                    }
                    WriteModeExpr::AppendLedger(_) => {
                        self.w("append");
                        self.sp();
                        self.w("ledger");
                    }
                }
                for k in &w.keys {
                    self.sp();
                    self.w("key");
                    self.sp();
                    self.key_expr(k);
                }
                for r in &w.requires {
                    self.sp();
                    self.w("require");
                    self.sp();
                    self.ident(r);
                }
            }
            TaskStmt::Emit(e) => {
                self.w("emit");
                self.sp();
                self.ident(&e.effect);
                match &e.via {
                    None => {}
                    Some(Via::Outbox(n, _)) => {
                        self.w(" via");
                        self.sp();
                        self.w("outbox");
                        if let Some(n) = n {
                            self.sp();
                            self.ident(n);
                        }
                        if let Some(k) = &e.key {
                            self.w(" key");
                            self.sp();
                            self.key_expr(k);
                        }
                    }
                    Some(Via::IdempotencyKey(k, _)) => {
                        self.w(" via");
                        self.sp();
                        self.w("idempotency_key");
                        self.sp();
                        self.key_expr(k);
                    }
                }
                if let Some(r) = &e.require {
                    self.w(" require");
                    self.sp();
                    self.ident(r);
                }
            }
            TaskStmt::Run(r) => {
                self.w("run");
                if let Some(i) = &r.image {
                    self.w(" image");
                    self.sp();
                    self.string(i);
                }
                self.w(" command");
                self.sp();
                self.group("[", "]", &r.command, Self::string);
            }
            TaskStmt::Env(e) => {
                self.w("env");
                self.open(indent);
                for (n, v) in &e.entries {
                    self.indent(indent + 1);
                    self.ident(n);
                    self.sp();
                    self.string(v);
                    self.eol(indent + 1);
                }
                self.close(indent);
            }
            TaskStmt::Allow(_) | TaskStmt::Setting(_) => unreachable!("printed above"),
        }
        self.eol(indent);
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Use(u) => {
                self.w("use");
                self.sp();
                self.string(&u.path);
            }
            Item::Kind(k) => {
                self.w("kind ");
                self.ident(&k.name);
                self.open(0);
                for s in &k.lines {
                    self.setting(s, 1);
                }
                for p in &k.params {
                    self.indent(1);
                    self.w("param");
                    self.sp();
                    self.ident(&p.name);
                    self.w(":");
                    self.sp();
                    self.ident(&p.ty);
                    if p.optional {
                        self.w("?");
                    }
                    self.eol(1);
                }
                self.close(0);
            }
            Item::Decl(d) => {
                self.w(d.role.word());
                self.sp();
                self.ident(&d.name);
                self.w(":");
                self.sp();
                self.ident(&d.kind);
                self.open(0);
                for s in &d.props {
                    self.setting(s, 1);
                }
                self.close(0);
            }
            Item::Pipeline(p) => {
                self.w("pipeline");
                self.sp();
                self.ident(&p.name);
                self.open(0);
                for s in &p.settings {
                    self.setting(s, 1);
                }
                for a in &p.allows {
                    self.allow(a, 1);
                }
                for t in &p.tasks {
                    self.indent(1);
                    self.w("task ");
                    self.ident(&t.name);
                    self.open(1);
                    for s in &t.stmts {
                        self.task_stmt(s);
                    }
                    self.close(1);
                    self.eol(1);
                }
                self.close(0);
            }
        }
    }

    fn file(mut self, f: &File) -> String {
        if self.choose(4) == 1 {
            self.eol(0);
        }
        for item in &f.items {
            self.item(item);
            self.eol(0);
        }
        self.out
    }
}

fn print(f: &File, layout: &[u8]) -> String {
    Printer::new(layout).file(f)
}

// ---------------------------------------------------------------------------
// Properties

/// Generous: a debug build on a busy machine; a hang or a blow-up is far slower.
const LIMIT: Duration = Duration::from_secs(5);

proptest! {
    #[test]
    fn printed_trees_parse_back_to_themselves(f in any_file(), layout in layout()) {
        let text = print(&f, &layout);
        let (ast, diags) = flowc::syntax::parse(flowc::source::FileId(0), &text);
        prop_assert!(diags.is_empty(), "findings {diags:?} for\n{text}");
        let ast = ast.expect("no finding, so a tree");
        prop_assert_eq!(
            invariants::strip_spans(&format!("{ast:?}")),
            invariants::strip_spans(&format!("{f:?}")),
            "the tree of\n{}", text
        );
    }

    #[test]
    fn check_holds_on_printed_files(
        files in prop::collection::vec((any_file(), layout()), 1..4),
    ) {
        // The files `a.flow`, `b.flow`, ... of one run, joined as the fuzz
        // target `check` reads them: `use "b.flow"` imports the second.
        let texts: Vec<String> = files.iter().map(|(f, l)| print(f, l)).collect();
        let mut bytes = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            if i > 0 {
                bytes.push(invariants::FILE_SEPARATOR);
            }
            bytes.extend_from_slice(t.as_bytes());
        }
        let started = Instant::now();
        let outcome = invariants::check_holds(&bytes).map_err(|e| {
            TestCaseError::fail(format!("{e}\n{}", texts.join("\n--- next file ---\n")))
        })?;
        prop_assert!(started.elapsed() < LIMIT, "check took {:?}", started.elapsed());
        prop_assert_eq!(outcome.roots.len(), 1);
    }

    #[test]
    fn fmt_holds_on_printed_files(f in any_file(), layout in layout()) {
        let text = print(&f, &layout);
        let started = Instant::now();
        let formatted = invariants::format_holds(&text)
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- input\n{text}")))?;
        prop_assert!(formatted.is_some(), "fmt refused\n{text}");
        prop_assert!(started.elapsed() < LIMIT, "fmt took {:?}", started.elapsed());
    }
}

#[test]
fn the_printer_covers_the_language() {
    // One hand-built tree with every kind of statement prints as expected.
    let f = File {
        items: vec![Item::Pipeline(Pipeline {
            name: ident("p"),
            settings: vec![Setting {
                name: ident("schedule"),
                args: vec![Value::Str(text("@daily"))],
                span: S,
            }],
            params: vec![],
            allows: vec![],
            tasks: vec![Task {
                name: ident("t"),
                stmts: vec![TaskStmt::Write(Box::new(Write {
                    sink: ident("o"),
                    mode: WriteModeExpr::AppendLedger(S),
                    keys: vec![],
                    requires: vec![ident("effectively_once")],
                    newest: vec![],
                    txns: vec![],
                    span: S,
                }))],
                span: S,
            }],
            span: S,
        })],
    };
    assert_eq!(
        print(&f, &[]),
        "pipeline p {\n  schedule \"@daily\"\n  task t {\n    write o append ledger require effectively_once\n  }\n}\n"
    );
}
