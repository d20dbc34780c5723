//! Interaction signals (seed 001, fast memory): how the person likes to be answered.
//!
//! Preferences ("brevity"), friction ("impatience"), what worked and what to avoid. They shape
//! *delivery* only — the read policy consults them last and no check ever reads them — so the
//! fast loop writes them freely. Each list is a small ring: the oldest entry makes room, which
//! is how these signals decay; a repeated signal moves to the newest place instead of
//! appearing twice.

use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    Preference,
    Friction,
    EffectivePattern,
    Avoidance,
}

impl std::str::FromStr for SignalKind {
    type Err = String;
    fn from_str(s: &str) -> Result<SignalKind, String> {
        match s {
            "preference" => Ok(SignalKind::Preference),
            "friction" => Ok(SignalKind::Friction),
            "effective" | "effective_pattern" => Ok(SignalKind::EffectivePattern),
            "avoidance" | "avoid" => Ok(SignalKind::Avoidance),
            _ => Err(format!("signal kind {s:?} must be preference, friction, effective or avoidance")),
        }
    }
}

pub const MAX_PER_KIND: usize = 8;
pub const MAX_SIGNAL_CHARS: usize = 80;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct InteractionSignals {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_preferences: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub friction_signals: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effective_patterns: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoidances: Vec<String>,
}

pub fn check_signal(text: &str) -> Result<(), String> {
    let t = text.trim();
    if t.is_empty() || t.chars().count() > MAX_SIGNAL_CHARS {
        return Err(format!("a signal is 1 to {MAX_SIGNAL_CHARS} characters"));
    }
    Ok(())
}

impl InteractionSignals {
    pub fn is_empty(&self) -> bool {
        self.user_preferences.is_empty()
            && self.friction_signals.is_empty()
            && self.effective_patterns.is_empty()
            && self.avoidances.is_empty()
    }

    pub fn of(&self, kind: SignalKind) -> &[String] {
        match kind {
            SignalKind::Preference => &self.user_preferences,
            SignalKind::Friction => &self.friction_signals,
            SignalKind::EffectivePattern => &self.effective_patterns,
            SignalKind::Avoidance => &self.avoidances,
        }
    }

    pub(crate) fn note(&mut self, kind: SignalKind, text: &str) {
        let list = match kind {
            SignalKind::Preference => &mut self.user_preferences,
            SignalKind::Friction => &mut self.friction_signals,
            SignalKind::EffectivePattern => &mut self.effective_patterns,
            SignalKind::Avoidance => &mut self.avoidances,
        };
        let text = text.trim().to_string();
        list.retain(|s| *s != text);
        list.push(text);
        let extra = list.len().saturating_sub(MAX_PER_KIND);
        list.drain(..extra);
    }
}
