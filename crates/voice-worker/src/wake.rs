//! The wake word: vosk restricted to one phrase.
//!
//! A general recogniser listening all day would cost a core and hear words in every noise.
//! Vosk accepts a grammar — the list of phrases it may output — so it is given the wake phrase
//! and `[unk]` (anything else), which makes it both cheap and hard to fool. It only hears audio
//! the VAD has already called speech (see `listener.rs`), so silence costs nothing. A model
//! whose vocabulary has no `[unk]` (the small Korean one) cannot reject through a grammar, so it
//! runs with its open vocabulary and the phrase must be among the words it hears.
//!
//! Vosk is an optional part of the build: `build.rs` links `libvosk` when it finds it (the setup
//! script fetches it from the `vosk` wheel). A build without it, or a machine without a wake
//! model for the language, reports the wake word as unavailable and push-to-talk carries on.

/// Grammar phrases are JSON strings inside vosk; anything but letters, digits, spaces and
/// apostrophes is refused rather than escaped.
pub fn check_phrase(phrase: &str) -> Result<String, String> {
    let p = phrase.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    if p.is_empty() {
        return Err("the wake phrase is empty".into());
    }
    if let Some(c) = p.chars().find(|c| !(c.is_alphanumeric() || *c == ' ' || *c == '\'')) {
        return Err(format!("the wake phrase may hold only letters, digits and spaces, not {c:?}"));
    }
    Ok(p)
}

/// Whether `heard` contains the phrase's words in order.
pub fn heard_phrase(heard: &str, phrase: &str) -> bool {
    let h: Vec<&str> = heard.split_whitespace().collect();
    let p: Vec<&str> = phrase.split_whitespace().collect();
    !p.is_empty() && h.windows(p.len()).any(|w| w == p.as_slice())
}

#[cfg(has_vosk)]
mod engine {
    use super::*;

    pub struct Wake {
        // Declared before the model: dropped first.
        rec: vosk::Recognizer,
        _model: vosk::Model,
        pub phrase: String,
    }

    impl Wake {
        pub fn load(dir: &str, phrase: &str) -> Result<Wake, String> {
            let phrase = check_phrase(phrase)?;
            if !std::path::Path::new(dir).join("am").is_dir() {
                return Err(format!("no vosk model at {dir} (a vosk model folder has am/, graph/, conf/)"));
            }
            vosk::set_log_level(vosk::LogLevel::Error);
            let mut model = vosk::Model::new(dir).ok_or_else(|| format!("vosk could not load the model at {dir}"))?;
            // vosk silently drops grammar words it does not know: a phrase outside the
            // vocabulary would never be heard.
            if let Some(word) = phrase.split_whitespace().find(|w| model.find_word(w).is_none()) {
                return Err(format!(
                    "the wake phrase's word {word:?} is not in the vocabulary of the vosk model at {dir}; choose a phrase of words it knows"
                ));
            }
            let rec = if model.find_word("[unk]").is_some() {
                let grammar = [phrase.as_str(), "[unk]"];
                vosk::Recognizer::new_with_grammar(&model, 16_000.0, &grammar)
                    .ok_or_else(|| format!("vosk refused the grammar for {phrase:?}"))?
            } else {
                // A model without `[unk]` (vosk-model-small-ko) has no word for "anything
                // else": vosk drops it from the grammar, which leaves the phrase as the only
                // possible output, and every sound is heard as the wake word. The open
                // vocabulary is the reject path then: the phrase must be heard among all the
                // words the model knows.
                vosk::Recognizer::new(&model, 16_000.0)
                    .ok_or_else(|| format!("vosk could not make a recogniser for the model at {dir}"))?
            };
            Ok(Wake { rec, _model: model, phrase })
        }

        /// Feeds speech; returns what vosk finalised, if it did.
        pub fn feed(&mut self, samples: &[f32]) -> Option<String> {
            let pcm: Vec<i16> = samples.iter().map(|s| (s.clamp(-1.0, 1.0) * 32767.0) as i16).collect();
            match self.rec.accept_waveform(&pcm) {
                Ok(vosk::DecodingState::Finalized) => self.rec.result().single().map(|r| r.text.to_string()),
                Ok(_) => {
                    let partial = self.rec.partial_result().partial.to_string();
                    heard_phrase(&partial, &self.phrase).then_some(partial)
                }
                Err(_) => None,
            }
        }

        /// Whatever vosk makes of the speech so far; the recogniser starts afresh after.
        pub fn finish(&mut self) -> String {
            let text = self.rec.final_result().single().map(|r| r.text.to_string()).unwrap_or_default();
            self.rec.reset();
            text
        }

        /// Forgets the speech so far.
        pub fn reset(&mut self) {
            self.rec.reset();
        }
    }
}

#[cfg(not(has_vosk))]
mod engine {
    pub struct Wake {
        pub phrase: String,
    }

    impl Wake {
        pub fn load(_dir: &str, _phrase: &str) -> Result<Wake, String> {
            Err("this build of the voice worker has no wake-word engine (libvosk was not found when it was built; run scripts/setup.sh and rebuild)".into())
        }
        pub fn feed(&mut self, _samples: &[f32]) -> Option<String> {
            None
        }
        pub fn finish(&mut self) -> String {
            String::new()
        }
        pub fn reset(&mut self) {}
    }
}

pub use engine::Wake;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn phrases_are_normalised_and_unsafe_characters_refused() {
        assert_eq!(check_phrase("  Hey   SMART ").unwrap(), "hey smart");
        assert_eq!(check_phrase("안녕하세요").unwrap(), "안녕하세요");
        assert!(check_phrase("hey\" smart").is_err());
        assert!(check_phrase("   ").is_err());
    }

    #[test]
    fn the_phrase_must_appear_as_whole_words_in_order() {
        assert!(heard_phrase("uh hey smart", "hey smart"));
        assert!(!heard_phrase("smart hey", "hey smart"));
        assert!(!heard_phrase("heysmart", "hey smart"));
        assert!(!heard_phrase("[unk]", "hey smart"));
    }
}
