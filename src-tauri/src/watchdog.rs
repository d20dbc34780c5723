//! The app's watchdog (seed 003 §2.6): notices what is stuck and says what to do about it.
//!
//! Three things can hang without anyone noticing: the interaction state machine (left outside
//! Idle by a bug, with no turn running), the proposer worker (dead between requests — the next
//! utterance would pay for the restart), and the web view (a frozen page stops sending its
//! heartbeat). This module is only the judgement: it takes observations with their time, never
//! reads a clock, and returns actions. The app's loop (`shell.rs`) observes once a second,
//! carries the actions out, and ledgers each as a `fault` event — so every intervention is on
//! the record, and the logic is tested without sleeping.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchdogConfig {
    /// How long the state machine may sit outside Idle with no turn running.
    pub stuck_after_ms: u64,
    /// How long the web view may go without a heartbeat once it has sent one.
    pub ui_silent_after_ms: u64,
}

impl Default for WatchdogConfig {
    fn default() -> Self {
        WatchdogConfig { stuck_after_ms: 30_000, ui_silent_after_ms: 15_000 }
    }
}

/// One look at the app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    pub now_ms: u64,
    /// The interaction state's name, or `None` while a turn holds the runtime (it is running,
    /// not stuck: the worker's own deadlines bound it).
    pub state: Option<String>,
    /// A worker was started and has exited since.
    pub worker_exited: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    ResetInteraction { stuck_in: String, for_ms: u64 },
    RestartWorker,
    ReloadUi { silent_ms: u64 },
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::ResetInteraction { stuck_in, for_ms } => {
                write!(
                    f,
                    "the interaction was stuck in {stuck_in} for {} s with nothing running; reset to idle",
                    for_ms / 1000
                )
            }
            Action::RestartWorker => write!(f, "the proposer worker had exited; restarted"),
            Action::ReloadUi { silent_ms } => {
                write!(f, "the window sent no heartbeat for {} s; reloaded", silent_ms / 1000)
            }
        }
    }
}

#[derive(Debug, Default)]
pub struct Watchdog {
    cfg: WatchdogConfig,
    /// The state last seen outside Idle, and since when (no turn running throughout).
    outside_idle: Option<(String, u64)>,
    last_heartbeat: Option<u64>,
    /// The UI was reloaded for the current silence; wait for a heartbeat before judging again.
    reloaded: bool,
}

impl Watchdog {
    pub fn new(cfg: WatchdogConfig) -> Watchdog {
        Watchdog { cfg, ..Watchdog::default() }
    }

    pub fn heartbeat(&mut self, now_ms: u64) {
        self.last_heartbeat = Some(now_ms);
        self.reloaded = false;
    }

    pub fn observe(&mut self, o: &Observation) -> Vec<Action> {
        let mut actions = vec![];
        match o.state.as_deref() {
            // A running turn or an idle machine: nothing is stuck.
            None | Some("idle") => self.outside_idle = None,
            Some(s) => match &self.outside_idle {
                Some((seen, since)) if seen == s => {
                    let for_ms = o.now_ms.saturating_sub(*since);
                    if for_ms >= self.cfg.stuck_after_ms {
                        actions.push(Action::ResetInteraction { stuck_in: s.to_string(), for_ms });
                        self.outside_idle = None;
                    }
                }
                _ => self.outside_idle = Some((s.to_string(), o.now_ms)),
            },
        }
        if o.worker_exited {
            actions.push(Action::RestartWorker);
        }
        if let Some(beat) = self.last_heartbeat {
            let silent_ms = o.now_ms.saturating_sub(beat);
            if silent_ms >= self.cfg.ui_silent_after_ms && !self.reloaded {
                actions.push(Action::ReloadUi { silent_ms });
                self.reloaded = true;
            }
        }
        actions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(now_ms: u64, state: Option<&str>) -> Observation {
        Observation { now_ms, state: state.map(str::to_string), worker_exited: false }
    }

    fn dog() -> Watchdog {
        Watchdog::new(WatchdogConfig { stuck_after_ms: 30_000, ui_silent_after_ms: 15_000 })
    }

    #[test]
    fn a_state_held_outside_idle_with_nothing_running_is_reset_once() {
        let mut w = dog();
        assert!(w.observe(&at(0, Some("executing"))).is_empty());
        assert!(w.observe(&at(29_999, Some("executing"))).is_empty());
        assert_eq!(
            w.observe(&at(30_000, Some("executing"))),
            vec![Action::ResetInteraction { stuck_in: "executing".into(), for_ms: 30_000 }]
        );
        // The episode is over: the next observation starts a new clock, it does not fire again.
        assert!(w.observe(&at(30_500, Some("executing"))).is_empty());
    }

    #[test]
    fn a_running_turn_or_idle_or_a_new_state_restarts_the_clock() {
        let mut w = dog();
        w.observe(&at(0, Some("reasoning")));
        // The turn holds the runtime (None): the model is thinking, not stuck.
        assert!(w.observe(&at(20_000, None)).is_empty());
        assert!(w.observe(&at(40_000, Some("reasoning"))).is_empty(), "the clock restarted at 40 s");
        assert!(w.observe(&at(60_000, Some("executing"))).is_empty(), "another state: another clock");
        assert!(w.observe(&at(80_000, Some("idle"))).is_empty());
        assert!(w.observe(&at(200_000, Some("idle"))).is_empty(), "idle is never stuck");
    }

    #[test]
    fn a_dead_worker_is_restarted() {
        let mut w = dog();
        let o = Observation { now_ms: 1, state: Some("idle".into()), worker_exited: true };
        assert_eq!(w.observe(&o), vec![Action::RestartWorker]);
    }

    #[test]
    fn a_silent_window_is_reloaded_once_per_silence() {
        let mut w = dog();
        assert!(w.observe(&at(100_000, Some("idle"))).is_empty(), "no heartbeat yet: the window may still be loading");
        w.heartbeat(100_000);
        assert!(w.observe(&at(114_999, Some("idle"))).is_empty());
        assert_eq!(w.observe(&at(115_000, Some("idle"))), vec![Action::ReloadUi { silent_ms: 15_000 }]);
        assert!(w.observe(&at(200_000, Some("idle"))).is_empty(), "one reload per silence");
        w.heartbeat(201_000);
        assert!(w.observe(&at(202_000, Some("idle"))).is_empty());
        assert_eq!(w.observe(&at(216_000, Some("idle"))), vec![Action::ReloadUi { silent_ms: 15_000 }]);
    }

    #[test]
    fn actions_say_what_happened_in_words() {
        let a = Action::ResetInteraction { stuck_in: "executing".into(), for_ms: 31_000 };
        assert_eq!(
            a.to_string(),
            "the interaction was stuck in executing for 31 s with nothing running; reset to idle"
        );
        assert!(Action::ReloadUi { silent_ms: 15_000 }.to_string().contains("15 s"));
    }
}
