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

/// The settings of this module, on a pipeline and on a task.
pub const POD_SETTINGS: [&str; 7] = [
    "namespace",
    "service_account",
    "resources",
    "labels",
    "annotations",
    "image_pull_policy",
    "airflow_executor",
];

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

/// Why `q` is no Kubernetes quantity (`500m`, `2`, `1.5`, `1Gi`, `512Mi`,
/// `1e3`), if it is not. `memory` refuses the milli suffix, which would
/// be a thousandth of a byte.
pub fn quantity(q: &str, memory: bool) -> Result<(), String> {
    let digits_end = q
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(q.len());
    let (number, suffix) = q.split_at(digits_end);
    let number_ok = !number.is_empty()
        && number.matches('.').count() <= 1
        && number.chars().any(|c| c.is_ascii_digit())
        && !number.ends_with('.');
    if !number_ok {
        return Err("it does not start with a number".to_owned());
    }
    let exponent = suffix
        .strip_prefix(['e', 'E'])
        .map(|e| e.strip_prefix(['+', '-']).unwrap_or(e))
        .is_some_and(|e| !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()));
    let known = [
        "", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
    ];
    if !(known.contains(&suffix) || exponent) {
        return Err(format!("`{suffix}` is no quantity suffix"));
    }
    if memory && suffix == "m" {
        return Err("`m` is a thousandth: for memory, write `Mi` (mebibytes) or `M`".to_owned());
    }
    Ok(())
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
        for ok in ["500m", "1", "0.5", "2k", "1Gi", "512Mi", "1e3", "1.5E+2"] {
            assert!(quantity(ok, false).is_ok(), "{ok}");
        }
        for bad in ["", "m", "1gb", "1.2.3", "1.", "Gi", "1 Gi", "1e"] {
            assert!(quantity(bad, false).is_err(), "{bad}");
        }
        assert!(quantity("500m", true).is_err());
        assert!(quantity("1Gi", true).is_ok());
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
