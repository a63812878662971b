//! Work spread over the cores, with results in input order, so output never
//! depends on how threads were scheduled.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of cores to use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// `f` over `items` cut into one run per thread, `threads` of them (on the
/// calling thread alone when `threads` is 1 or there are fewer than `min`
/// items); the results in order.
pub fn map_runs<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    min: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    if threads < 2 || items.len() < min.max(2) {
        return vec![f(items)];
    }
    let per = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(per)
            .map(|run| scope.spawn(move || f(run)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// `f` on every item, `threads` at a time, each thread taking the next item
/// as it finishes one (for items of uneven cost); the results in order.
pub fn map_each<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len());
    if threads < 2 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let (next, f) = (&next, &f);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        out.push((i, f(item)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::{map_each, map_runs};

    #[test]
    fn each_result_comes_back_in_order() {
        let items: Vec<u64> = (0..1_003).collect();
        for threads in [1, 2, 3, 16] {
            let out = map_each(&items, threads, |x| x * x);
            assert_eq!(
                out,
                items.iter().map(|x| x * x).collect::<Vec<_>>(),
                "{threads}"
            );
        }
    }

    #[test]
    fn runs_come_back_in_order_and_cover_every_item() {
        let items: Vec<u32> = (0..10_007).collect();
        for threads in [1, 2, 3, 16] {
            for min in [0, 2, 64, 20_000] {
                let runs = map_runs(&items, threads, min, <[u32]>::to_vec);
                let expected = if threads == 1 || min == 20_000 {
                    1
                } else {
                    threads
                };
                assert_eq!(runs.len(), expected, "{threads} threads, min {min}");
                let joined: Vec<u32> = runs.into_iter().flatten().collect();
                assert_eq!(joined, items, "{threads} threads, min {min}");
            }
        }
        assert_eq!(map_runs(&[] as &[u32], 2, 0, <[u32]>::len), vec![0]);
    }
}
