//! Listening to an utterance's kept audio again: hearing it again when its first reading is a
//! question, and weighing the ways it may have been meant.
//!
//! Weighing comes first and is cheaper: when words of the transcript sound loosely like names
//! that exist (`smart_voice::weighed_names`), the worker says how likely whisper finds the
//! transcript with each such name in place of those words, against the same audio — a short
//! decoder pass per text, on the state that heard the utterance — and a name clearly
//! likelier than what whisper wrote is read instead ("misk" is the folder misc when the audio
//! says so). The rest of this essay is about the second hearing.
//!
//! The voice worker cuts whisper's encoder window to the utterance and a margin: on a short
//! command that is a fifth of the encoder work of the full 30-second window, and the largest
//! single saving on the way to a proposal in about a second. The cut has a price. On some
//! utterances whisper stops early ("redirect payslips slash scratch 2019 dot pdf to …" heard as
//! "redirect,") or loses a word at the end ("do I have any documents that mention glacier"
//! without "glacier"); the whole window hears them. Hearing everything with the whole window
//! was measured: more right calls (espeak-ng dev set 58.5 → 61.1 %), but the median proposal
//! a second later, which is the wrong trade for the four utterances in five the cut window
//! hears well enough.
//!
//! So the whole window is paid for only where it can matter: when the first transcript's
//! reading is a question — a request was recognised, but a name or the tool is unclear. The
//! assistant then asks for a second hearing of the same audio, reads it, and takes it only if
//! that reading is a call; otherwise the first reading's question stands. A second hearing can
//! change *what was heard*, never what the kernel allows: its call is judged like any other.
//!
//! A reading of *no call* is final. Chatter and noise heard again come back as another garble
//! that the model may read a request into ("turn up the volume" heard again became a move):
//! on the espeak-ng sets, re-hearing no-call readings won 3 utterances and lost 5, all of the
//! losses calls nobody asked for; re-hearing questions won 15 and lost 1.
//!
//! Signals inside the worker (whisper's confidence, words per second, a trailing comma) were
//! tried as the trigger instead and pick the wrong utterances; the reading is the signal that
//! knows whether the words made sense as a request.

//! A second hearing that loses a word saying what to do is not taken either. The whole window
//! is surer of names than of verbs on a small model: "empty, quarantine." heard again was
//! "empty, warranty." (a file called warranty.txt is in the folder), and its reading — a
//! quarantine of warranty.txt — is a call nobody asked for. Names are what a second hearing is
//! for; a command word the first hearing had, the second must keep — unless it hears a command
//! word of its own, which is a new hearing of the request ([`keeps_the_request`]).

use crate::voice::{Voice, VoiceSupervisor, VoiceWorkerError};
use smart_voice::protocol::Transcript;
use smart_voice::weighed_names::Weight;
use std::future::Future;
use std::pin::Pin;

/// The words of `text`, lower case, split at anything that is not a letter or digit ("m-t-m-
/// quarantine" holds "quarantine").
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// Whether `second` keeps what `first` says to do: every command word of the first (not a
/// frame word such as "which" or "slash": `smart_voice::command_words`) is still there, or the
/// second says what to do in command words of its own. Only a hearing that loses a verb and
/// gains none is refused: "What's look on text?" heard again as "What's the context?" is a
/// better hearing; "empty, quarantine." as "empty, warranty." is a name where a verb was.
pub fn keeps_the_request(first: &str, second: &str) -> bool {
    let acts = |text: &str| -> std::collections::BTreeSet<String> {
        words(text).filter(|w| smart_voice::command_words::says_what_to_do(w)).collect()
    };
    let (before, after) = (acts(first), acts(second));
    before.is_subset(&after) || !after.is_subset(&before)
}

/// Another listen to an utterance's kept audio: heard again, or texts weighed against it.
pub trait Rehear: Send {
    /// What was heard the second time from the audio `first` was heard from; `None` when it
    /// cannot be heard again (the worker restarted, or failed: the first hearing stands).
    fn rehear<'a>(&'a mut self, first: &'a Transcript)
    -> Pin<Box<dyn Future<Output = Option<Transcript>> + Send + 'a>>;

    /// How likely whisper finds each of `texts` as the transcript of the audio `first` was
    /// heard from (`smart_voice::weighed_names`); `None` when it cannot say (no audio, the
    /// worker restarted or failed: the transcript stands as written).
    fn weigh<'a>(
        &'a mut self,
        _first: &'a Transcript,
        _texts: &'a [String],
    ) -> Pin<Box<dyn Future<Output = Option<Vec<Weight>>> + Send + 'a>> {
        Box::pin(async { None })
    }
}

fn or_as_written(result: Result<Vec<Weight>, VoiceWorkerError>) -> Option<Vec<Weight>> {
    match result {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(error = %e, "could not weigh what may have been said; the transcript stands as written");
            None
        }
    }
}

fn or_first_stands(result: Result<Transcript, VoiceWorkerError>) -> Option<Transcript> {
    match result {
        Ok(t) => Some(t),
        Err(e) => {
            tracing::warn!(error = %e, "could not hear the utterance again; the first hearing stands");
            None
        }
    }
}

impl Rehear for Voice {
    fn rehear<'a>(
        &'a mut self,
        first: &'a Transcript,
    ) -> Pin<Box<dyn Future<Output = Option<Transcript>> + Send + 'a>> {
        Box::pin(async move { or_first_stands(Voice::rehear(self, first).await) })
    }

    fn weigh<'a>(
        &'a mut self,
        first: &'a Transcript,
        texts: &'a [String],
    ) -> Pin<Box<dyn Future<Output = Option<Vec<Weight>>> + Send + 'a>> {
        Box::pin(async move { or_as_written(Voice::weigh(self, first, texts).await) })
    }
}

impl Rehear for VoiceSupervisor {
    fn rehear<'a>(
        &'a mut self,
        first: &'a Transcript,
    ) -> Pin<Box<dyn Future<Output = Option<Transcript>> + Send + 'a>> {
        Box::pin(async move { or_first_stands(VoiceSupervisor::rehear(self, first).await) })
    }

    fn weigh<'a>(
        &'a mut self,
        first: &'a Transcript,
        texts: &'a [String],
    ) -> Pin<Box<dyn Future<Output = Option<Vec<Weight>>> + Send + 'a>> {
        Box::pin(async move { or_as_written(VoiceSupervisor::weigh(self, first, texts).await) })
    }
}

/// A second hearing already made (a replayed transcript, or a test's): given once.
#[derive(Clone, Debug, Default)]
pub struct Recorded(pub Option<Transcript>);

impl Rehear for Recorded {
    fn rehear<'a>(&'a mut self, _: &'a Transcript) -> Pin<Box<dyn Future<Output = Option<Transcript>> + Send + 'a>> {
        let t = self.0.take();
        Box::pin(async move { t })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_hearing_may_mend_names_but_not_lose_what_to_do() {
        // What broke: the whole window heard "quarantine" as a file's name.
        assert!(!keeps_the_request("empty, quarantine.", "empty, warranty."));
        assert!(!keeps_the_request("Suggest quarantine, client slash misc", "Suggest warranty in Clients slash misc"));
        // Names put right, the request kept.
        assert!(keeps_the_request("redirect payslips slash", "redirect payslips slash scratch 2019 dot pdf to notes"));
        assert!(keeps_the_request("Empty, m-t-m-quarantine.", "empty the quarantine"));
        // Words that say nothing about what to do may go.
        assert!(keeps_the_request("which files talk about", "Files about glacier?"));
        // A second hearing with a verb of its own is another hearing of the request, taken.
        assert!(keeps_the_request("What's look on text?", "What's the context?"));
        assert!(keeps_the_request("Vy map hash, the Wy map", "Apply the patch."));
        // What broke without the check: "Search a timer for 10 minutes." heard again as "Santa
        // timer for 10 minutes." was read as a read of minutes.docx, a call nobody asked for.
        assert!(!keeps_the_request("Search a timer for 10 minutes.", "Santa timer for 10 minutes."));
    }
}
