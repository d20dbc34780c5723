//! Which request a stretch of speech belongs to.
//!
//! A typed request is one call with one id (`TurnId`). Speech is a stream: the voice worker
//! reports speech starting and ending, the wake phrase heard or not, a transcript — and the
//! front ends (`smart listen`, the app's voice task) must cut that stream into requests, so the
//! live line, the turn and its ledger events share the id the person was shown and the next
//! request does not inherit it.
//!
//! Most cuts are plain: a push-to-talk press starts a request, a transcript ends one (it becomes
//! a turn), a stretch of speech that did not begin with the wake phrase ends one. The wake word
//! makes more: speech that ends with no word of it heard — whisper heard nothing, so there is
//! neither a wake nor a rejection — is over, and the next speech is a new request; speech that
//! starts after a lone wake phrase's wait for its command has run out
//! ([`smart_voice::wake_phrase::ARMED_MS`], on the events' audio clock) is a new request, as is a
//! second wake. A rejection closes its request but does not start the next: a long stretch of
//! speech is rejected while it goes on, and its end still belongs to it. The phrase said alone
//! and the command after a pause stay one request: the wake keeps the id across the gap.
//!
//! Both front ends hold one [`VoiceTurns`], so they cut the same stream the same way; the cuts
//! are tested as data below.

use crate::turn_id::TurnId;
use smart_voice::protocol::Event;
use smart_voice::wake_phrase::ARMED_MS;

/// The request the voice events now arriving belong to.
#[derive(Debug)]
pub struct VoiceTurns {
    current: TurnId,
    /// Listening for the wake phrase (speech without it is not a request).
    wake: bool,
    /// When the wake phrase was heard for the current request (the audio clock's ms).
    woke_at: Option<u64>,
    /// The current request is over (its speech ended unaddressed, or was rejected): the next
    /// speech begins another.
    over: bool,
}

impl VoiceTurns {
    /// `wake`: the stream comes from wake-word listening (a capture or a file).
    pub fn new(wake: bool) -> VoiceTurns {
        VoiceTurns { current: TurnId::new(), wake, woke_at: None, over: false }
    }

    /// The request the next event belongs to, unless the event itself starts a new one.
    pub fn current(&self) -> &TurnId {
        &self.current
    }

    /// A push-to-talk press: a new request starts now.
    pub fn pressed(&mut self) -> &TurnId {
        self.renew();
        &self.current
    }

    /// The request `event` belongs to, starting a new one first where the event begins one. A
    /// transcript belongs to the current request; call [`VoiceTurns::finished`] once its turn is
    /// over.
    pub fn on(&mut self, event: &Event) -> TurnId {
        let begins = match event {
            Event::SpeechStart { at_ms } => {
                self.wake && (self.over || self.woke_at.is_some_and(|w| at_ms.saturating_sub(w) > ARMED_MS))
            }
            Event::Wake { .. } => self.woke_at.is_some(),
            _ => false,
        };
        if begins {
            self.renew();
        }
        let id = self.current.clone();
        match event {
            // A lone phrase is spotted after its speech ended: the wake undoes that ending.
            Event::Wake { at_ms, .. } => {
                self.woke_at = Some(*at_ms);
                self.over = false;
            }
            Event::SpeechEnd { .. } if self.woke_at.is_none() => self.over = true,
            Event::WakeRejected { .. } => self.over = true,
            _ => {}
        }
        id
    }

    /// The transcript made its turn: the next speech is a new request.
    pub fn finished(&mut self) {
        self.renew();
    }

    fn renew(&mut self) {
        self.current = TurnId::new();
        self.woke_at = None;
        self.over = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smart_voice::protocol::Transcript;

    /// A stream as the worker sends it; `T` is a transcript (its turn finishes at once). Times
    /// are on the audio clock: a wake at 1 s, speech starting at 2 s or, `Late`, after the
    /// wake's wait for its command has run out.
    #[derive(Clone, Copy, Debug)]
    enum E {
        Start,
        Late,
        End,
        Wake,
        Rejected,
        T,
    }

    fn event(e: E) -> Event {
        match e {
            E::Start => Event::SpeechStart { at_ms: 2_000 },
            E::Late => Event::SpeechStart { at_ms: 1_000 + ARMED_MS + 1 },
            E::End => Event::SpeechEnd { at_ms: 0, decided_ms: 0, speech_ms: 0 },
            E::Wake => Event::Wake { at_ms: 1_000, phrase: "hey smart".into() },
            E::Rejected => Event::WakeRejected { at_ms: 0, heard: "hello there".into() },
            E::T => Event::Transcript(Transcript {
                text: "scan the docs folder".into(),
                confidence: 1.0,
                no_speech: 0.0,
                language: "en".into(),
                start_ms: 0,
                end_ms: 0,
                timings: Default::default(),
            }),
        }
    }

    /// The request number each event lands in (0, 1, …, in order of first appearance).
    fn requests(wake: bool, stream: &[E]) -> Vec<usize> {
        let mut v = VoiceTurns::new(wake);
        let mut seen: Vec<TurnId> = vec![];
        stream
            .iter()
            .map(|e| {
                let id = v.on(&event(*e));
                if matches!(e, E::T) {
                    v.finished();
                }
                match seen.iter().position(|s| *s == id) {
                    Some(i) => i,
                    None => {
                        seen.push(id);
                        seen.len() - 1
                    }
                }
            })
            .collect()
    }

    /// (what happened, wake listening, the stream, the request of each event)
    const CASES: &[(&str, bool, &[E], &[usize])] = &[
        ("two push-to-talk utterances", false, &[E::Start, E::End, E::T, E::Start, E::End, E::T], &[0, 0, 0, 1, 1, 1]),
        ("phrase and command in one breath", true, &[E::Start, E::Wake, E::End, E::T, E::Start], &[0, 0, 0, 0, 1]),
        (
            "the phrase alone, a pause, then the command",
            true,
            &[E::Start, E::End, E::Wake, E::Start, E::End, E::T],
            &[0, 0, 0, 0, 0, 0],
        ),
        ("speech that was not addressed to SMART", true, &[E::Start, E::End, E::Rejected, E::Start], &[0, 0, 0, 1]),
        (
            "a long stretch rejected while it went on, its end still its own",
            true,
            &[E::Start, E::Rejected, E::End, E::Start],
            &[0, 0, 0, 1],
        ),
        (
            "speech after a lone wake's wait ran out, rejected",
            true,
            &[E::Start, E::End, E::Wake, E::Late, E::End, E::Rejected, E::Start],
            &[0, 0, 0, 1, 1, 1, 2],
        ),
        (
            "speech whisper heard nothing in, then a request",
            true,
            &[E::Start, E::End, E::Start, E::Wake, E::End, E::T],
            &[0, 0, 1, 1, 1, 1],
        ),
        (
            "a wake whose command never came, then a new wake",
            true,
            &[E::Start, E::End, E::Wake, E::Late, E::End, E::Wake, E::Start, E::End, E::T],
            &[0, 0, 0, 1, 1, 1, 1, 1, 1],
        ),
        (
            "two wakes in a row",
            true,
            &[E::Start, E::Wake, E::End, E::Start, E::Wake, E::End, E::T],
            &[0, 0, 0, 0, 1, 1, 1],
        ),
        (
            "without the wake word, a pause inside one utterance does not split it",
            false,
            &[E::Start, E::End, E::Late, E::End, E::T],
            &[0, 0, 0, 0, 0],
        ),
    ];

    #[test]
    fn each_stretch_of_speech_lands_in_the_request_it_belongs_to() {
        for (what, wake, stream, want) in CASES {
            assert_eq!(requests(*wake, stream), *want, "{what}");
        }
    }

    #[test]
    fn a_press_starts_a_new_request() {
        let mut v = VoiceTurns::new(false);
        let before = v.current().clone();
        let pressed = v.pressed().clone();
        assert_ne!(before, pressed);
        assert_eq!(v.on(&event(E::Start)), pressed, "the worker's speech start joins the press");
    }
}
