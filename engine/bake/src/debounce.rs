//! When to act on a stream of file events: after a quiet spell, or after a longest
//! wait while events keep coming, so a burst of writes costs one bake.

use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Debouncer {
    quiet: Duration,
    longest: Duration,
    /// (first, last) event of the pending burst.
    pending: Option<(Instant, Instant)>,
}

impl Debouncer {
    /// Fires `quiet` after the last event, or `longest` after the first one.
    pub fn new(quiet: Duration, longest: Duration) -> Self {
        Debouncer {
            quiet,
            longest,
            pending: None,
        }
    }

    pub fn event(&mut self, now: Instant) {
        self.pending = Some(match self.pending {
            Some((first, _)) => (first, now),
            None => (now, now),
        });
    }

    /// True once when the pending burst is due; the burst is then cleared.
    pub fn fire(&mut self, now: Instant) -> bool {
        let due = self.pending.is_some_and(|(first, last)| {
            now.duration_since(last) >= self.quiet || now.duration_since(first) >= self.longest
        });
        if due {
            self.pending = None;
        }
        due
    }

    /// How long to wait for more events before [`Self::fire`] may be due.
    pub fn wait(&self, now: Instant, idle: Duration) -> Duration {
        match self.pending {
            None => idle,
            Some((first, last)) => {
                let by_quiet = (last + self.quiet).saturating_duration_since(now);
                let by_longest = (first + self.longest).saturating_duration_since(now);
                by_quiet.min(by_longest).min(idle)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_burst_fires_once_after_the_quiet_spell() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(100 * MS, 1000 * MS);
        assert!(!d.fire(t0));
        for i in 0..50 {
            d.event(t0 + i * 10 * MS);
            assert!(!d.fire(t0 + i * 10 * MS + 5 * MS));
        }
        let last = t0 + 490 * MS;
        assert_eq!(d.wait(last, 1000 * MS), 100 * MS);
        assert!(!d.fire(last + 99 * MS));
        assert!(d.fire(last + 100 * MS));
        assert!(!d.fire(last + 200 * MS), "fires once per burst");
    }

    #[test]
    fn endless_events_still_fire_after_the_longest_wait() {
        let t0 = Instant::now();
        let mut d = Debouncer::new(100 * MS, 300 * MS);
        let mut fired = 0;
        for i in 0..100 {
            let now = t0 + i * 10 * MS;
            d.event(now);
            fired += usize::from(d.fire(now));
        }
        assert_eq!(fired, 3);
    }
}
