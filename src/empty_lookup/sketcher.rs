//! Sketches built off the caller's thread.
//!
//! Building a result's [`GramSketch`] is the largest part of a push (about
//! half of it for a 100 KB JSON result), and nothing needs the sketch until a
//! later call searches that result. So when the machine has a core to spare,
//! a push hands the job to one helper thread of the process and returns; a
//! call that finds a sketch not built yet searches that result in full,
//! which gives the same answer (a sketch only ever lets a search be
//! skipped). The work is done beside the caller's thread instead of on it,
//! and costs a little more there: the text is read from another core's
//! cache, and the helper stays awake for 200 µs after its queue
//! empties, since a run pushes in bursts.
//!
//! The helper can fall behind (a busy machine, many pushes in a row). A
//! call then builds the sketch of any result it needs except the newest on
//! its own thread, as a push without the helper would have, rather than
//! search in full result after result. The newest result is left to the
//! helper: the call right after a push would otherwise always build it.
//!
//! **Memory safety.** A job reads the text in place, in its corpus's arena.
//! Before the arena's memory can be freed or reused (the corpus cleared or
//! dropped), [`PendingSketch::cancel`] is called on each of its jobs: a job
//! not started is never started, and one being built is waited for.

use super::sketch::GramSketch;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// How a corpus builds its sketches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sketching {
    /// On the pushing thread, during the push.
    Inline,
    /// On the helper thread, after the push.
    Background,
}

impl Sketching {
    /// The process's default: in the background when the machine has more
    /// than one core and `SEAMGUARD_SKETCH_THREAD` is not `0`, else inline.
    pub fn default_for_process() -> Self {
        static DEFAULT: OnceLock<Sketching> = OnceLock::new();
        *DEFAULT.get_or_init(|| {
            let refused = std::env::var_os("SEAMGUARD_SKETCH_THREAD").is_some_and(|value| value == "0");
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            if refused || cores < 2 {
                Sketching::Inline
            } else {
                Sketching::Background
            }
        })
    }
}

const QUEUED: u8 = 0;
const BUILDING: u8 = 1;
const DONE: u8 = 2;
const CANCELLED: u8 = 3;

/// A sketch asked of the helper: its text, where it lies, and the sketch
/// once built.
#[derive(Debug)]
pub struct PendingSketch {
    state: AtomicU8,
    sketch: OnceLock<Option<GramSketch>>,
    text: *const u8,
    len: usize,
}

// SAFETY: `text` is only read, and only while the state is `BUILDING`; the
// owner of the memory waits out that state before it frees or reuses the
// memory (see `cancel`).
unsafe impl Send for PendingSketch {}
// SAFETY: as above; every other field is `Sync`.
unsafe impl Sync for PendingSketch {}

impl PendingSketch {
    /// Queues the sketch of `text` with the helper, or `None` when there is
    /// no helper thread (it could not be started), in which case the caller
    /// builds the sketch itself.
    ///
    /// # Safety
    ///
    /// `text` must stay valid and unchanged until [`Self::cancel`] has
    /// returned (or the job is done).
    pub unsafe fn queue(text: &[u8]) -> Option<Arc<Self>> {
        let helper = helper()?;
        let pending = Arc::new(PendingSketch {
            state: AtomicU8::new(QUEUED),
            sketch: OnceLock::new(),
            text: text.as_ptr(),
            len: text.len(),
        });
        helper.send(Arc::clone(&pending)).ok()?;
        Some(pending)
    }

    /// The sketch, if it is built.
    pub fn ready(&self) -> Option<&GramSketch> {
        self.sketch.get().and_then(Option::as_ref)
    }

    /// The sketch, built here and now if the helper has not started it;
    /// `None` while the helper is building it (or if building it failed).
    pub fn ready_or_build(&self) -> Option<&GramSketch> {
        if let Some(sketch) = self.sketch.get() {
            return sketch.as_ref();
        }
        if self.state.compare_exchange(QUEUED, BUILDING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            self.build();
            return self.ready();
        }
        None
    }

    /// Builds the sketch; the caller has moved the state to `BUILDING`.
    fn build(&self) {
        // SAFETY: while the state is `BUILDING`, the text's owner keeps it
        // valid (see `queue` and `cancel`).
        let text = unsafe { std::slice::from_raw_parts(self.text, self.len) };
        let sketch = std::panic::catch_unwind(|| GramSketch::of_text(text)).ok().flatten();
        let _ = self.sketch.set(sketch);
        let (lock, done) = &*FINISHED;
        // Taking the lock orders this store before any waiter's check.
        let guard = lock.lock();
        self.state.store(DONE, Ordering::Release);
        drop(guard);
        done.notify_all();
    }

    /// Makes sure the text is no longer read: a job not started never will
    /// be, and this waits for one being built to finish.
    pub fn cancel(&self) {
        if self.state.compare_exchange(QUEUED, CANCELLED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            return;
        }
        let (lock, done) = &*FINISHED;
        let mut guard = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        while self.state.load(Ordering::Acquire) == BUILDING {
            guard = done.wait(guard).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Whether the job is over: built, failed or cancelled.
    pub fn is_settled(&self) -> bool {
        matches!(self.state.load(Ordering::Acquire), DONE | CANCELLED)
    }
}

/// Signalled each time a job is done, for [`PendingSketch::cancel`].
static FINISHED: std::sync::LazyLock<(Mutex<()>, Condvar)> =
    std::sync::LazyLock::new(|| (Mutex::new(()), Condvar::new()));

/// The queue of the helper thread, started on first use; `None` when it
/// could not be started.
fn helper() -> Option<&'static Sender<Arc<PendingSketch>>> {
    static HELPER: OnceLock<Option<Sender<Arc<PendingSketch>>>> = OnceLock::new();
    HELPER
        .get_or_init(|| {
            let (sender, jobs) = mpsc::channel::<Arc<PendingSketch>>();
            std::thread::Builder::new()
                .name("seamguard-sketch".into())
                .spawn(move || {
                    while let Some(job) = next_job(&jobs) {
                        if job
                            .state
                            .compare_exchange(QUEUED, BUILDING, Ordering::AcqRel, Ordering::Acquire)
                            .is_ok()
                        {
                            job.build();
                        }
                    }
                })
                .ok()
                .map(|_| sender)
        })
        .as_ref()
}

/// How long the helper stays awake for the next job once the queue is
/// empty. A run pushes its results in bursts; a thread that has gone to
/// sleep takes tens to hundreds of microseconds to wake on a virtual
/// machine, and a call that meets a sketch not built yet searches in full
/// or builds it itself.
const STAY_AWAKE: std::time::Duration = std::time::Duration::from_micros(200);

/// The next job: spinning briefly while the queue is empty, then waiting.
/// `None` once every sender is gone.
fn next_job(jobs: &mpsc::Receiver<Arc<PendingSketch>>) -> Option<Arc<PendingSketch>> {
    let since = std::time::Instant::now();
    loop {
        match jobs.try_recv() {
            Ok(job) => return Some(job),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if since.elapsed() < STAY_AWAKE => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Empty) => return jobs.recv().ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_lines(lines: usize) -> Vec<u8> {
        (0..lines)
            .map(|i| {
                format!(
                    "{{\"wwpn\":\"20:00:00:25:b5:{:02x}:{:02x}:07\",\"port\":\"fc1/{}\"}}\n",
                    i % 251,
                    i % 13,
                    i
                )
            })
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn a_queued_sketch_is_the_sketch_of_its_text() {
        let text = json_lines(2_000);
        // SAFETY: `text` outlives the job: it is cancelled before the end.
        let pending = unsafe { PendingSketch::queue(&text) }.expect("a helper thread");
        while !pending.is_settled() {
            std::thread::yield_now();
        }
        let built = pending.ready().expect("built");
        assert!(*built == GramSketch::of_text(&text).expect("long enough"));
        pending.cancel();
    }

    #[test]
    fn the_caller_builds_what_the_helper_has_not_started() {
        // Many jobs at once, so that some are still queued when asked for:
        // each one ends up built exactly once, by whichever thread took it.
        let texts: Vec<Vec<u8>> = (0..64).map(|i| json_lines(200 + i)).collect();
        // SAFETY: the texts outlive the jobs: each is cancelled below.
        let pending: Vec<_> = texts
            .iter()
            .map(|text| unsafe { PendingSketch::queue(text) }.expect("a helper thread"))
            .collect();
        for (job, text) in pending.iter().zip(&texts).rev() {
            if let Some(sketch) = job.ready_or_build() {
                assert!(*sketch == GramSketch::of_text(text).expect("long enough"));
            }
        }
        for job in &pending {
            job.cancel();
            assert!(job.is_settled());
        }
    }

    #[test]
    fn cancelled_jobs_never_read_their_text() {
        for round in 0..50 {
            let texts: Vec<Vec<u8>> = (0..16).map(|i| json_lines(100 + i + round)).collect();
            // SAFETY: each job is cancelled before its text is dropped.
            let pending: Vec<_> = texts
                .iter()
                .map(|text| unsafe { PendingSketch::queue(text) }.expect("a helper thread"))
                .collect();
            for job in &pending {
                job.cancel();
                assert!(job.is_settled());
            }
            // The texts' memory is freed here; a job reading it after its
            // cancel returned would read freed memory.
            drop(texts);
            for job in &pending {
                assert!(job.is_settled());
            }
        }
    }
}
