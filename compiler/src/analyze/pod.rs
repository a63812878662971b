//! Where a task runs (flowc 0.2): the pod settings of a pipeline and of a
//! task (`namespace`, `service_account`, `resources`, `labels`,
//! `annotations`, `image_pull_policy`), the Airflow executor, and the
//! checks of their values against Kubernetes' rules. A check returns why a
//! value is refused, as a clause the rule file puts in its message.

/// A task's or pipeline's pod settings, as written (a task's fall back to
/// its pipeline's field by field; labels and annotations key by key).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodDef {
    pub namespace: Option<String>,
    pub service_account: Option<String>,
    pub cpu: Option<String>,
    pub memory: Option<String>,
    pub labels: Vec<(String, String)>,
    pub annotations: Vec<(String, String)>,
    pub image_pull_policy: Option<String>,
}

impl PodDef {
    /// `self` (a task's) over `base` (its pipeline's).
    #[must_use]
    pub fn over(&self, base: &PodDef) -> PodDef {
        let merge = |own: &[(String, String)], base: &[(String, String)]| {
            let mut out: Vec<(String, String)> = base
                .iter()
                .filter(|(k, _)| !own.iter().any(|(o, _)| o == k))
                .cloned()
                .collect();
            out.extend(own.iter().cloned());
            out.sort();
            out
        };
        PodDef {
            namespace: self.namespace.clone().or_else(|| base.namespace.clone()),
            service_account: self
                .service_account
                .clone()
                .or_else(|| base.service_account.clone()),
            cpu: self.cpu.clone().or_else(|| base.cpu.clone()),
            memory: self.memory.clone().or_else(|| base.memory.clone()),
            labels: merge(&self.labels, &base.labels),
            annotations: merge(&self.annotations, &base.annotations),
            image_pull_policy: self
                .image_pull_policy
                .clone()
                .or_else(|| base.image_pull_policy.clone()),
        }
    }
}

/// How Airflow runs a task (`airflow_executor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executor {
    /// A local process on the worker, even when an image is set.
    Local,
    /// A Kubernetes pod of the task's image.
    Kubernetes,
}

impl Executor {
    pub const ALL: [(&'static str, Executor); 2] = [
        ("local", Executor::Local),
        ("kubernetes", Executor::Kubernetes),
    ];

    pub fn word(self) -> &'static str {
        match self {
            Executor::Local => "local",
            Executor::Kubernetes => "kubernetes",
        }
    }
}

/// Kubernetes' image pull policies.
pub const PULL_POLICIES: [&str; 3] = ["Always", "IfNotPresent", "Never"];

/// Argo's pod garbage-collection strategies (`argo_pod_gc`).
pub const POD_GC: [&str; 4] = [
    "OnPodCompletion",
    "OnPodSuccess",
    "OnWorkflowCompletion",
    "OnWorkflowSuccess",
];

/// The keys of `resources { ... }`.
pub const RESOURCE_KEYS: [&str; 2] = ["cpu", "memory"];

fn label_chars(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Why `s` is no DNS-1123 label (a namespace), if it is not.
pub fn dns_label(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("it is empty".to_owned());
    }
    if s.len() > 63 {
        return Err(format!("it has {} characters, more than 63", s.len()));
    }
    if !label_chars(s) {
        return Err("it may hold only a-z, 0-9 and `-`".to_owned());
    }
    if s.starts_with('-') || s.ends_with('-') {
        return Err("it must start and end with a letter or digit".to_owned());
    }
    Ok(())
}

/// Why `s` is no DNS-1123 subdomain (a service account or Secret name), if
/// it is not.
pub fn dns_subdomain(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("it is empty".to_owned());
    }
    if s.len() > 253 {
        return Err(format!("it has {} characters, more than 253", s.len()));
    }
    for part in s.split('.') {
        if part.is_empty() || !label_chars(part) || part.starts_with('-') || part.ends_with('-') {
            return Err(
                "it may hold only a-z, 0-9, `-` and `.`, each dot-separated part starting and ending with a letter or digit"
                    .to_owned(),
            );
        }
    }
    Ok(())
}

/// A label's name part, or a label value when `empty_ok`: at most 63
/// characters of letters, digits, `-`, `_` and `.`, starting and ending
/// with a letter or digit.
fn label_name(s: &str, empty_ok: bool) -> Result<(), String> {
    if s.is_empty() {
        return if empty_ok {
            Ok(())
        } else {
            Err("its name is empty".to_owned())
        };
    }
    if s.len() > 63 {
        return Err(format!("it has {} characters, more than 63", s.len()));
    }
    let ok = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    let ends = s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.ends_with(|c: char| c.is_ascii_alphanumeric());
    if !ok || !ends {
        return Err(
            "it may hold only letters, digits, `-`, `_` and `.`, and must start and end with a letter or digit"
                .to_owned(),
        );
    }
    Ok(())
}

/// Why `key` is no label or annotation key (`[PREFIX/]NAME`), if it is not.
pub fn metadata_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        dns_subdomain(p).map_err(|why| format!("its prefix `{p}` is no DNS name: {why}"))?;
        return label_name(name, false).map_err(|why| format!("after the `/`, {why}"));
    }
    label_name(name, false)
}

/// Why `value` is no label value, if it is not.
pub fn label_value(value: &str) -> Result<(), String> {
    label_name(value, true)
}

/// Why `q` is no Kubernetes quantity, if it is not: exactly the grammar of
/// Kubernetes (`k8s.io/apimachinery`'s `resource.Quantity`):
/// `[+-]NUMBER SUFFIX`, NUMBER being `D`, `D.D`, `D.` or `.D` (D one or
/// more digits), SUFFIX a binary one (`Ki` .. `Ei`), a decimal one (`n`,
/// `u`, `m`, none, `k`, `M` .. `E`) or an exponent (`e` or `E` and a signed
/// integer). A resource is never negative. `memory` counts bytes: a value
/// that is no whole number of bytes (`500m`, `0.5`, `1e-3`) is refused.
pub fn quantity(q: &str, memory: bool) -> Result<(), String> {
    let (negative, unsigned) = match q.as_bytes().first() {
        Some(b'-') => (true, &q[1..]),
        Some(b'+') => (false, &q[1..]),
        _ => (false, q),
    };
    let number_end = unsigned
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(unsigned.len());
    let (number, suffix) = unsigned.split_at(number_end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.len() + fraction.len() == 0 || fraction.contains('.') {
        return Err("it does not start with a number".to_owned());
    }
    // The power of ten, or of 1024, the suffix multiplies by.
    let (ten, binary): (i64, u32) = match suffix {
        "Ki" => (0, 1),
        "Mi" => (0, 2),
        "Gi" => (0, 3),
        "Ti" => (0, 4),
        "Pi" => (0, 5),
        "Ei" => (0, 6),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "" => (0, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        _ => {
            let exponent = suffix
                .strip_prefix(['e', 'E'])
                .filter(|e| {
                    let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                })
                .ok_or_else(|| format!("`{suffix}` is no quantity suffix"))?;
            let ten = exponent
                .parse::<i64>()
                .ok()
                .filter(|e| e.unsigned_abs() <= 1_000)
                .ok_or_else(|| format!("the exponent `{exponent}` is out of range"))?;
            (ten, 0)
        }
    };
    let digits = format!("{whole}{fraction}");
    let zero = digits.bytes().all(|b| b == b'0');
    if negative && !zero {
        return Err("a resource cannot be negative".to_owned());
    }
    if memory
        && !zero
        && !whole_bytes(
            &digits,
            ten.saturating_sub(i64::try_from(fraction.len()).unwrap_or(i64::MAX)),
            binary,
        )
    {
        return Err(if suffix == "m" {
            "`m` is a thousandth: for memory, write `Mi` (mebibytes) or `M`".to_owned()
        } else {
            "it is not a whole number of bytes: memory cannot be split below a byte".to_owned()
        });
    }
    Ok(())
}

/// Whether `digits` (a decimal integer) times 10^`ten` times 1024^`binary`
/// is a whole number.
fn whole_bytes(digits: &str, ten: i64, binary: u32) -> bool {
    if ten >= 0 {
        return true;
    }
    // Trailing zeros of the digits cancel powers of ten first.
    let trimmed = digits.trim_end_matches('0');
    let cancelled = i64::try_from(digits.len() - trimmed.len()).unwrap_or(i64::MAX);
    let d = ten.saturating_neg().saturating_sub(cancelled);
    if d <= 0 {
        return true;
    }
    // 10^d = 2^d * 5^d must divide N * 2^(10 * binary): 5^d divides N, and
    // 2^(d - 10 * binary) does, when positive. Past 5^50 (u128's reach)
    // the quantity is taken as fractional: no sensible amount of memory is
    // written with fifty decimals.
    let Some(d) = u32::try_from(d).ok().filter(|&d| d <= 50) else {
        return false;
    };
    let modulo = |m: u128| {
        trimmed
            .bytes()
            .fold(0u128, |acc, b| (acc * 10 + u128::from(b - b'0')) % m)
    };
    let fives = 5u128.pow(d);
    let twos = d.saturating_sub(10 * binary);
    modulo(fives) == 0 && (twos == 0 || modulo(1u128 << twos) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_kubernetes() {
        assert!(dns_label("data-jobs").is_ok());
        assert!(dns_label("Data").is_err());
        assert!(dns_label("-a").is_err());
        assert!(dns_label(&"a".repeat(64)).is_err());
        assert!(dns_subdomain("flowc.runner").is_ok());
        assert!(dns_subdomain("flowc..runner").is_err());
        assert!(dns_subdomain("a_b").is_err());
        assert!(metadata_key("app.kubernetes.io/part-of").is_ok());
        assert!(metadata_key("team").is_ok());
        assert!(metadata_key("Team_1.x").is_ok());
        assert!(metadata_key("bad/").is_err());
        assert!(metadata_key("Bad_Prefix/x").is_err());
        assert!(metadata_key("-x").is_err());
        assert!(label_value("").is_ok());
        assert!(label_value("billing").is_ok());
        assert!(label_value("has space").is_err());
    }

    #[test]
    fn quantities_follow_kubernetes() {
        for ok in [
            "500m", "1", "0.5", "2k", "1Gi", "512Mi", "1e3", "1.5E+2", "1.", ".5", "+1", "100n",
            "3u", "0", "-0", "1E", "1e-3",
        ] {
            assert!(quantity(ok, false).is_ok(), "{ok}");
        }
        for bad in [
            "", "m", "1gb", "1.2.3", ".", "Gi", "1 Gi", "1e", "-1", "1e1.5", "1e+", "--1", "1Ki2",
            "1e99999",
        ] {
            assert!(quantity(bad, false).is_err(), "{bad}");
        }
        for ok in [
            "1Gi",
            "1.5Ki",
            "0.5Ki",
            "1e3",
            "1.000",
            "2.5k",
            "1e0",
            "0.0009765625Ki",
            "0.001k",
            "100e-2",
            "0",
            "0.0",
        ] {
            assert!(quantity(ok, true).is_ok(), "{ok}");
        }
        for bad in [
            "500m",
            "1e-3",
            "0.001",
            "0.0000000001",
            "0.5",
            "1.5",
            "1.0001k",
            "0.00048828125Ki",
            "1n",
            "1000u",
            "1e-51",
            "0.3Ki",
            "0.000009765625Ki",
        ] {
            assert!(quantity(bad, true).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_task_falls_back_to_its_pipeline() {
        let pipeline = PodDef {
            namespace: Some("jobs".into()),
            cpu: Some("1".into()),
            labels: vec![("team".into(), "a".into()), ("tier".into(), "x".into())],
            ..PodDef::default()
        };
        let task = PodDef {
            cpu: Some("2".into()),
            labels: vec![("team".into(), "b".into())],
            ..PodDef::default()
        };
        let got = task.over(&pipeline);
        assert_eq!(got.namespace.as_deref(), Some("jobs"));
        assert_eq!(got.cpu.as_deref(), Some("2"));
        assert_eq!(
            got.labels,
            vec![("team".into(), "b".into()), ("tier".into(), "x".into())]
        );
    }
}
