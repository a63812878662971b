//! "Did you mean": the closest known name to a misspelled one.

/// The candidate closest to `name`, if any is close enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|(d, c)| *d <= limit || c.eq_ignore_ascii_case(name))
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

/// Like [`closest`], and failing that the candidate that begins like
/// `name`: a short name typed from memory (`slak`) is closest to the start
/// of a long one (`slack_message`), not to the whole of it. Ties go to the
/// first in sorted order, so the answer is deterministic.
pub fn closest_or_start<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    closest(name, candidates.clone()).or_else(|| {
        let len = name.chars().count();
        if len < 3 {
            return None;
        }
        let limit = (len / 3).max(1);
        candidates
            .into_iter()
            .filter(|c| c.chars().count() > len)
            .map(|c| {
                let start: String = c.chars().take(len).collect();
                (strsim::damerau_levenshtein(name, &start), c)
            })
            .filter(|(d, _)| *d <= limit)
            .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)))
            .map(|(_, c)| c)
    })
}

/// `; did you mean `x`?` or nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    mean(closest(name, candidates))
}

/// `; did you mean `x`?` for the closest name `x` found, or nothing.
pub fn mean(near: Option<&str>) -> String {
    near.map_or_else(String::new, |c| format!("; did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_only() {
        assert_eq!(closest("upsrt", ["upsert", "append"]), Some("upsert"));
        assert_eq!(
            closest("ordres", ["orders", "daily_totals"]),
            Some("orders")
        );
        assert_eq!(closest("zzz", ["orders"]), None);
    }

    #[test]
    fn a_short_name_finds_the_long_one_it_begins() {
        let kinds = ["slack_message", "postgres_table", "sqlite_table", "files"];
        assert_eq!(closest("slak", kinds), None);
        assert_eq!(closest_or_start("slak", kinds), Some("slack_message"));
        assert_eq!(closest_or_start("postgres", kinds), Some("postgres_table"));
        assert_eq!(closest_or_start("fils", kinds), Some("files"));
        assert_eq!(closest_or_start("zzzz", kinds), None);
        assert_eq!(closest_or_start("sl", kinds), None);
    }
}
