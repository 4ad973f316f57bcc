//! Independent pieces of work spread over the machine's cores: `depot generate` renders
//! and writes many files from one document; the checks of a large sheet run in parts.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Frees `value` on a thread of its own, beside what the caller does next: a document of
/// a million texts takes a tenth of a large import or diff to free on the thread that
/// would otherwise wait for it.
pub fn free_beside<T: Send + 'static>(value: T) {
    std::thread::spawn(move || drop(value));
}

/// The number of cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `0..len` cut into contiguous ranges, one per core when `worth_it` (one range when not,
/// or when `len` is 0), for `map` over a large piece of work that splits evenly.
pub fn ranges(len: usize, worth_it: bool) -> Vec<Range<usize>> {
    let parts = if worth_it { cores() } else { 1 };
    chunks(len, len.div_ceil(parts))
}

/// `0..len` cut into contiguous ranges of `size` (the last one shorter), for `map` over
/// uneven work: many small parts keep every thread busy.
pub fn chunks(len: usize, size: usize) -> Vec<Range<usize>> {
    let size = size.max(1);
    (0..len)
        .step_by(size)
        .map(|first| first..(first + size).min(len))
        .collect()
}

/// `work` applied to every item on up to `threads` threads (the calling one included),
/// the results in item order. Items are handed out one at a time, so uneven items still
/// keep every thread busy. More threads than `cores()` pays when `work` also waits (on a
/// disk sync, say): the cores render while some threads wait. A panic in `work` is passed
/// on to the caller.
pub fn map<T, R>(threads: usize, items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    map_after(threads, items, work, || ())
}

/// `map`, with the calling thread doing `first` (a job of its own) before it takes
/// items; the other threads start on the items at once.
pub fn map_after<T, R>(
    threads: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    first: impl FnOnce(),
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let threads = threads.min(items.len());
    if threads <= 1 {
        first();
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, work(item)));
        }
    };
    let mut all = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(take)).collect();
        first();
        let mut all = take();
        for helper in helpers {
            match helper.join() {
                Ok(done) => all.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, result)| result).collect()
}

/// `work` applied to every item on up to `threads` threads of their own, while the calling
/// thread hands each result to `consume` in item order as soon as it and every one before
/// it are done: a serial step (`import` assembling what was read) runs beside the parallel
/// one instead of after it. An `Err` from `consume` stops the work (items not yet started
/// are skipped) and is returned. A panic in `work` is passed on to the caller.
pub fn for_each_in_order<T, R, E>(
    threads: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
{
    let threads = threads.min(items.len());
    if threads <= 1 {
        for item in items {
            consume(work(item))?;
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (done, results) = std::sync::mpsc::channel::<(usize, R)>();
        for _ in 0..threads {
            let (done, next, stop, work) = (done.clone(), &next, &stop, &work);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        return;
                    };
                    if done.send((i, work(item))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        // results that came before their turn
        let mut waiting: Vec<Option<R>> =
            std::iter::repeat_with(|| None).take(items.len()).collect();
        let mut turn = 0;
        for (i, result) in results {
            waiting[i] = Some(result);
            while let Some(result) = waiting.get_mut(turn).and_then(Option::take) {
                turn += 1;
                if let Err(e) = consume(result) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_item_order_whatever_finishes_first() {
        let items: Vec<u64> = (0..200).collect();
        let out = map(4, &items, |&i| {
            // Early items take longest, so later ones finish first.
            std::thread::sleep(std::time::Duration::from_micros(200 - i));
            i * 2
        });
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn results_are_consumed_in_item_order_and_an_error_stops_the_rest() {
        let items: Vec<u64> = (0..200).collect();
        let mut seen = Vec::new();
        let done: Result<(), ()> = for_each_in_order(
            4,
            &items,
            |&i| {
                std::thread::sleep(std::time::Duration::from_micros(200 - i));
                i * 2
            },
            |r| {
                seen.push(r);
                Ok(())
            },
        );
        assert_eq!(done, Ok(()));
        assert_eq!(seen, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let started = AtomicUsize::new(0);
        let mut consumed = 0;
        let stopped = for_each_in_order(
            2,
            &items,
            |&i| {
                started.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_micros(300));
                i
            },
            |i| {
                consumed += 1;
                if i == 3 { Err(i) } else { Ok(()) }
            },
        );
        assert_eq!(stopped, Err(3));
        assert_eq!(consumed, 4);
        assert!(started.load(Ordering::SeqCst) < items.len());
        let mut one = Vec::new();
        let _: Result<(), ()> = for_each_in_order(
            1,
            &[1, 2],
            |&i| i + 1,
            |r| {
                one.push(r);
                Ok(())
            },
        );
        assert_eq!(one, [2, 3]);
    }

    #[test]
    fn ranges_cover_the_length_once_in_order() {
        for len in [0, 1, 7, 1000] {
            for worth_it in [false, true] {
                let ranges = ranges(len, worth_it);
                let covered: Vec<usize> = ranges.iter().cloned().flatten().collect();
                assert_eq!(covered, (0..len).collect::<Vec<_>>(), "{len} {worth_it}");
                assert!(ranges.len() <= cores().max(1));
            }
        }
        assert_eq!(ranges(1000, false).len(), 1);
        assert_eq!(chunks(10, 4), [0..4, 4..8, 8..10]);
        assert!(chunks(0, 4).is_empty());
    }

    #[test]
    fn the_calling_thread_does_its_own_job_first_then_joins_in() {
        let here = std::thread::current().id();
        let items: Vec<usize> = (0..50).collect();
        let first_done = std::sync::atomic::AtomicBool::new(false);
        let out = map_after(
            2,
            &items,
            |&i| {
                // what the calling thread takes, it takes after its own job
                let on_caller = std::thread::current().id() == here;
                assert!(!on_caller || first_done.load(Ordering::SeqCst));
                std::thread::sleep(std::time::Duration::from_micros(100));
                i + 1
            },
            || {
                assert_eq!(std::thread::current().id(), here);
                std::thread::sleep(std::time::Duration::from_millis(2));
                first_done.store(true, Ordering::SeqCst);
            },
        );
        assert_eq!(out, (1..51).collect::<Vec<_>>());
        let mut ran = false;
        assert_eq!(map_after(1, &[1, 2], |&i| i * 3, || ran = true), [3, 6]);
        assert!(ran);
    }

    #[test]
    fn no_items_and_one_item_need_no_threads() {
        assert_eq!(map(4, &[] as &[u8], |&b| b), Vec::<u8>::new());
        assert_eq!(map(4, &[7], |&b| b + 1), vec![8]);
    }

    #[test]
    fn every_item_is_done_exactly_once() {
        let count = AtomicUsize::new(0);
        let items: Vec<usize> = (0..1000).collect();
        let out = map(4, &items, |&i| {
            count.fetch_add(1, Ordering::Relaxed);
            i
        });
        assert_eq!(count.load(Ordering::Relaxed), 1000);
        assert_eq!(out, items);
    }
}
