//! Timing figures: frame times (recent for FPS, all for the run summary) and sample
//! statistics for ray casts and first strokes.

use std::collections::VecDeque;

use serde::Serialize;

/// Frames averaged for the FPS figure.
const RECENT_FRAMES: usize = 30;

/// Summary statistics of a series of durations, in the series' unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub mean: f64,
    pub median: f64,
    pub max: f64,
    pub last: f64,
}

/// Every value recorded, for statistics at the end of a run.
#[derive(Clone, Debug, Default)]
pub struct Series {
    values: Vec<f64>,
}

impl Series {
    pub fn record(&mut self, value: f64) {
        if value.is_finite() {
            self.values.push(value);
        }
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    pub fn stats(&self) -> Stats {
        let Some(&last) = self.values.last() else {
            return Stats::default();
        };
        let mut sorted = self.values.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
        };
        Stats {
            count: n,
            mean: sorted.iter().sum::<f64>() / n as f64,
            median,
            max: sorted[n - 1],
            last,
        }
    }
}

/// Frame times: the recent window for the HUD's FPS, the whole run for the summary.
#[derive(Clone, Debug, Default)]
pub struct FrameClock {
    recent: VecDeque<f64>,
    all_ms: Series,
}

impl FrameClock {
    /// Records a frame that took `seconds` (main-thread wall time).
    pub fn frame(&mut self, seconds: f64) {
        if !seconds.is_finite() || seconds < 0.0 {
            return;
        }
        if self.recent.len() == RECENT_FRAMES {
            self.recent.pop_front();
        }
        self.recent.push_back(seconds);
        self.all_ms.record(seconds * 1e3);
    }

    /// Frames per second over the recent window.
    pub fn fps(&self) -> f64 {
        let total: f64 = self.recent.iter().sum();
        if total > 0.0 {
            self.recent.len() as f64 / total
        } else {
            0.0
        }
    }

    /// Milliseconds of the last frame.
    pub fn last_ms(&self) -> f64 {
        self.recent.back().map_or(0.0, |s| s * 1e3)
    }

    pub fn all_ms(&self) -> Stats {
        self.all_ms.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_a_series() {
        let mut s = Series::default();
        assert_eq!(s.stats(), Stats::default());
        for v in [4.0, 1.0, 3.0, 2.0, f64::NAN] {
            s.record(v);
        }
        let stats = s.stats();
        assert_eq!(
            (stats.count, stats.mean, stats.median, stats.max, stats.last),
            (4, 2.5, 2.5, 4.0, 2.0)
        );
    }

    #[test]
    fn fps_follows_the_recent_frames() {
        let mut clock = FrameClock::default();
        assert_eq!(clock.fps(), 0.0);
        for _ in 0..100 {
            clock.frame(0.5);
        }
        for _ in 0..RECENT_FRAMES {
            clock.frame(0.1);
        }
        assert!((clock.fps() - 10.0).abs() < 1e-9);
        assert!((clock.last_ms() - 100.0).abs() < 1e-9);
        assert_eq!(clock.all_ms().count, 100 + RECENT_FRAMES);
        clock.frame(-1.0);
        assert_eq!(clock.all_ms().count, 100 + RECENT_FRAMES);
    }
}
