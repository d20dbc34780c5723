//! Speech to text with whisper.cpp, paying only for the audio there is.
//!
//! whisper's encoder is built for 30-second windows: a 3-second command padded to 30 seconds
//! costs ten times the encoder work it needs. whisper.cpp lets the encoder run on fewer
//! positions (`audio_ctx`, 20 ms each); we size it to the utterance plus a margin, which is the
//! largest single saving on the way to the latency target. Decoding is greedy with one
//! candidate and no timestamps: a command is one short segment.

use crate::expect::Expectation;
use smart_voice::endpoint::SAMPLE_RATE;
use smart_voice::protocol::{Expect, SttTimings};
use smart_voice::wake_phrase::Scored;
use std::time::Instant;
use whisper_rs::{FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters};

pub struct Stt {
    ctx: WhisperContext,
    pub name: String,
    pub multilingual: bool,
    threads: i32,
    language: Option<String>,
    prompt: Option<String>,
    /// Encoder positions the model was trained with (1500 = 30 s).
    max_ctx: i32,
    /// The command words and names to prefer while decoding, if any.
    expect: Option<Expectation>,
}

/// whisper's state after hearing an utterance with the trimmed window: its encoder has been
/// run over that audio, so texts can be weighed against it without running it again.
pub struct Encoded(whisper_rs::WhisperState);

pub struct Heard {
    /// The state that heard it, for weighing ([`Stt::weigh`]); only for the trimmed window,
    /// which is the window weighing uses.
    pub encoded: Option<Encoded>,
    pub text: String,
    pub confidence: f32,
    pub no_speech: f32,
    pub language: String,
    pub timings: SttTimings,
}

/// Encoder positions for `samples` of audio: 50 a second, plus a margin (whisper degrades when
/// the window is cut exactly at the last word), never more than the model has.
pub fn audio_ctx_for(samples: usize, max_ctx: i32) -> i32 {
    let positions = samples.div_ceil(SAMPLE_RATE as usize / 50) as i32;
    (positions + 64).clamp(64, max_ctx.max(64))
}

impl Stt {
    pub fn load(path: &str, threads: i32, language: Option<String>, prompt: Option<String>) -> Result<Stt, String> {
        if !std::path::Path::new(path).is_file() {
            return Err(format!(
                "the whisper model {path} does not exist (fetch one with `smart models fetch whisper-tiny.en`)"
            ));
        }
        let ctx = WhisperContext::new_with_params(path, WhisperContextParameters::default())
            .map_err(|e| format!("whisper could not load {path}: {e:?} (is it a whisper.cpp ggml file?)"))?;
        let multilingual = ctx.is_multilingual();
        if let Some(lang) = &language
            && whisper_rs::get_lang_id(lang).is_none()
        {
            return Err(format!("whisper does not know the language {lang:?} (use a code like en, de, ko)"));
        }
        let max_ctx = ctx.model_n_audio_ctx();
        let name = std::path::Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prompt = prompt.filter(|p| !p.trim().is_empty());
        Ok(Stt { ctx, name, multilingual, threads: threads.max(1), language, prompt, max_ctx, expect: None })
    }

    /// Prefer `expect`'s phrases from the next transcription on (`None`: open transcription).
    /// Returns how many written forms of the phrases are expected.
    pub fn expect(&mut self, expect: Option<&Expect>) -> Result<usize, String> {
        self.expect = match expect {
            Some(e) if !e.phrases.is_empty() => Some(Expectation::build(&self.ctx, e)?),
            _ => None,
        };
        Ok(self.expect.as_ref().map_or(0, |e| e.forms))
    }

    /// Transcribes one utterance. `trim` false runs the full 30 s window (for the benchmark's
    /// comparison with whisper.cpp's defaults).
    pub fn transcribe(&self, samples: &[f32], trim: bool) -> Result<Heard, String> {
        self.transcribe_after(samples, trim, None)
    }

    /// [`Stt::transcribe`] with `lead` said just before the audio, after the prompt: whisper
    /// continues the text it is given, so speech that may begin with the wake phrase is heard
    /// after a sentence that addressed SMART by it.
    pub fn transcribe_after(&self, samples: &[f32], trim: bool, lead: Option<&str>) -> Result<Heard, String> {
        let started = Instant::now();
        let mut state = self.ctx.create_state().map_err(|e| format!("whisper state: {e:?}"))?;
        let mut params = self.one_pass();
        params.set_suppress_blank(true);
        params.set_suppress_nst(true);
        // A trimmed window makes whisper prone to repeating itself to the end of its token
        // budget ("Stop! Stop! Stop! ..."); people say at most ~4 tokens a second.
        let seconds = samples.len() / SAMPLE_RATE as usize + 1;
        params.set_max_tokens((seconds * 6 + 8).min(224) as i32);
        let language =
            if self.multilingual { self.language.clone().unwrap_or_else(|| "auto".into()) } else { "en".into() };
        params.set_language(Some(language.as_str()));
        let prompt = match (&self.prompt, lead) {
            (Some(p), Some(l)) => Some(format!("{p} {l}")),
            (p, l) => p.clone().or_else(|| l.map(str::to_string)),
        };
        if let Some(p) = &prompt {
            params.set_initial_prompt(p);
        }
        if let Some(e) = &self.expect {
            e.install(&mut params);
        }
        let audio_ctx = if trim { audio_ctx_for(samples.len(), self.max_ctx) } else { self.max_ctx };
        params.set_audio_ctx(audio_ctx);
        state.full(params, &at_least_a_second(samples)).map_err(|e| format!("whisper failed: {e:?}"))?;
        let mut text = String::new();
        let (mut p_sum, mut p_n, mut no_speech) = (0.0f32, 0u32, 0.0f32);
        let eot = self.ctx.token_eot();
        for seg in state.as_iter() {
            text.push_str(&seg.to_str_lossy().map_err(|e| format!("whisper text: {e:?}"))?);
            no_speech = no_speech.max(seg.no_speech_probability());
            for i in 0..seg.n_tokens() {
                if let Some(tok) = seg.get_token(i)
                    && tok.token_id() < eot
                {
                    p_sum += tok.token_probability();
                    p_n += 1;
                }
            }
        }
        let detected = whisper_rs::get_lang_str(state.full_lang_id_from_state()).unwrap_or("en").to_string();
        Ok(Heard {
            encoded: trim.then_some(Encoded(state)),
            text: collapse_repeats(&clean(&text)),
            confidence: if p_n == 0 { 0.0 } else { p_sum / p_n as f32 },
            no_speech,
            language: if self.multilingual { detected } else { "en".into() },
            timings: SttTimings {
                audio_ms: samples.len() as u64 * 1000 / u64::from(SAMPLE_RATE),
                audio_ctx: audio_ctx as u32,
                stt_ms: started.elapsed().as_millis() as u64,
                ..Default::default()
            },
        })
    }

    /// How likely whisper finds each of `texts` as the transcript of `samples`: the sum of the
    /// log-probabilities of its tokens and of its end, each given the audio and the tokens
    /// before it, with no prompt and no expected phrases, so that texts are compared on the
    /// audio alone (the wake word's acoustic check). The window is encoded once — a `full` run
    /// with the trimmed window that writes one token — then each text is fed through the
    /// decoder a token at a time and every next token's log-probability read from its logits.
    /// Texts that begin alike share the decoder's work up to where they part. (Forcing each text
    /// through `full` from the logits hook gives the same scores, to the hundredth, at the cost
    /// of an encoder pass per text.)
    ///
    /// `encoded`: the state that heard `samples` ([`Heard::encoded`]); its encoder's work is
    /// used as it is, which saves the one pass over the audio that weighing would cost.
    pub fn weigh(
        &self,
        samples: &[f32],
        texts: &[String],
        encoded: Option<&mut Encoded>,
    ) -> Result<Vec<Scored>, String> {
        let language =
            if self.multilingual { self.language.clone().unwrap_or_else(|| "en".into()) } else { "en".into() };
        let mut own;
        let state = match encoded {
            Some(Encoded(state)) => state,
            None => {
                own = self.ctx.create_state().map_err(|e| format!("whisper state: {e:?}"))?;
                let mut params = self.one_pass();
                params.set_max_tokens(1);
                params.set_language(Some(language.as_str()));
                params.set_audio_ctx(audio_ctx_for(samples.len(), self.max_ctx));
                own.full(params, &at_least_a_second(samples)).map_err(|e| format!("whisper failed: {e:?}"))?;
                &mut own
            }
        };

        let eot = self.ctx.token_eot();
        let mut start = vec![self.ctx.token_sot()];
        if self.multilingual {
            let lang = whisper_rs::get_lang_id(&language).unwrap_or(0);
            start.extend([self.ctx.token_lang(lang), self.ctx.token_transcribe()]);
        }
        start.push(self.ctx.token_not());
        // One token through the decoder is little work to share, and each step's threads meet
        // at a barrier: on a quiet 2-core box two threads weigh the wake check's three texts in
        // 0.24 s and one in 0.41 s, but with the eval running beside it two took 14 s and one
        // 2.7 s. Load may make hearing slower, not stall it.
        let threads = 1;
        // What is in the decoder's cache, and the log-probabilities of text tokens after each.
        let mut fed: Vec<i32> = vec![];
        let mut after: Vec<Vec<f32>> = vec![];
        let mut out = Vec::with_capacity(texts.len());
        for text in texts {
            let mut target = start.clone();
            target.extend(
                self.ctx.tokenize(text, 64).map_err(|e| format!("whisper could not tokenize {text:?}: {e:?}"))?,
            );
            target.push(eot);
            let feed = &target[..target.len() - 1];
            let shared = fed.iter().zip(feed).take_while(|(a, b)| a == b).count();
            fed.truncate(shared);
            after.truncate(shared);
            for (pos, &token) in feed.iter().enumerate().skip(shared) {
                state.decode(&[token], pos, threads).map_err(|e| format!("whisper could not decode: {e:?}"))?;
                let logits = state.get_logits().map_err(|e| format!("whisper logits: {e:?}"))?;
                after.push(text_log_softmax(logits, eot));
                fed.push(token);
            }
            // Each token's log-probability is read from the row after the token before it.
            let logp = target
                .iter()
                .enumerate()
                .skip(start.len())
                .map(|(i, &token)| {
                    let row = i.checked_sub(1).and_then(|before| after.get(before));
                    let logp = usize::try_from(token).ok().and_then(|t| row?.get(t).copied());
                    logp.unwrap_or(-30.0).max(-30.0)
                })
                .sum();
            out.push(Scored { logp, tokens: target.len() - start.len() });
        }
        Ok(out)
    }

    /// Greedy, one segment, no timestamps, nothing printed — and one pass: the fallback ladder
    /// re-decodes at higher temperatures, which multiplies the time of exactly the unclear
    /// utterances and is rarely better on a short command.
    fn one_pass<'a, 'b>(&self) -> FullParams<'a, 'b> {
        let mut params = FullParams::new(SamplingStrategy::Greedy { best_of: 1 });
        params.set_n_threads(self.threads);
        params.set_no_context(true);
        params.set_single_segment(true);
        params.set_no_timestamps(true);
        params.set_print_special(false);
        params.set_print_progress(false);
        params.set_print_realtime(false);
        params.set_print_timestamps(false);
        params.set_temperature_inc(0.0);
        params
    }
}

/// Log-probabilities over the text tokens and the end of text (`0..=eot`), which is what
/// whisper may write once timestamps and its control tokens are suppressed.
fn text_log_softmax(logits: &[f32], eot: i32) -> Vec<f32> {
    let n = usize::try_from(eot).map_or(0, |e| (e + 1).min(logits.len()));
    let text = &logits[..n];
    let max = text.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = max + text.iter().map(|l| (l - max).exp()).sum::<f32>().ln();
    text.iter().map(|l| l - lse).collect()
}

/// whisper needs at least a second of audio; shorter clips are padded with silence.
fn at_least_a_second(samples: &[f32]) -> std::borrow::Cow<'_, [f32]> {
    let min = SAMPLE_RATE as usize + SAMPLE_RATE as usize / 10;
    if samples.len() < min {
        std::borrow::Cow::Owned([samples, &vec![0.0; min - samples.len()]].concat())
    } else {
        std::borrow::Cow::Borrowed(samples)
    }
}

/// whisper's habits on silence and noise: bracketed non-speech tags ("[BLANK_AUDIO]",
/// "(wind blowing)") are not words anyone said.
fn clean(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = (depth - 1).max(0),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A phrase said again and again is whisper looping, not the person: "Stop! Stop! Stop!" and
/// "Hash, notes, Hash, notes, Hash, no" become "Stop!" and "Hash, notes,". The earliest run
/// of a unit of words repeated back to back (three times for a single word, twice for longer
/// units) is kept once, and the rest of the loop — including a cut-off last repetition — goes.
fn collapse_repeats(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let norm: Vec<String> =
        words.iter().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
    let n = words.len();
    for start in 0..n {
        for unit in 1..=(n - start) / 2 {
            let needed = if unit == 1 { 3 } else { 2 };
            let same = |k: usize| (0..unit).all(|j| norm.get(start + k * unit + j) == norm.get(start + j));
            let mut reps = 1;
            while start + (reps + 1) * unit <= n && same(reps) {
                reps += 1;
            }
            if reps < needed {
                continue;
            }
            // Words after the last full repetition that begin the unit again are the loop too.
            let mut end = start + reps * unit;
            let mut j = 0;
            while end < n {
                let expected = &norm[start + j % unit];
                let cut_off = end == n - 1 && !norm[end].is_empty() && expected.starts_with(&norm[end]);
                if norm[end] != *expected && !cut_off {
                    break;
                }
                end += 1;
                j += 1;
            }
            let mut out: Vec<&str> = words[..start + unit].to_vec();
            out.extend_from_slice(&words[end..]);
            return out.join(" ");
        }
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encoder_window_follows_the_audio() {
        assert_eq!(audio_ctx_for(3 * 16_000, 1500), 150 + 64);
        assert_eq!(audio_ctx_for(100, 1500), 65);
        assert_eq!(audio_ctx_for(60 * 16_000, 1500), 1500);
    }

    #[test]
    fn a_looping_transcript_is_collapsed_to_what_was_said() {
        assert_eq!(collapse_repeats("Stop! Stop! Stop! Stop"), "Stop!");
        assert_eq!(collapse_repeats("Scan the folder. Scan the folder. Scan the fol"), "Scan the folder.");
        assert_eq!(
            collapse_repeats("Hash, notes, not DxD, Hash, notes, not DxD, Hash, notes,"),
            "Hash, notes, not DxD,"
        );
        assert_eq!(
            collapse_repeats("List of files in music, list of files in music, list of files"),
            "List of files in music,"
        );
        assert_eq!(collapse_repeats("Scan it. Then hash it."), "Scan it. Then hash it.");
        assert_eq!(collapse_repeats("no no, scan the folder"), "no no, scan the folder");
        assert_eq!(collapse_repeats("scan the folder"), "scan the folder");
    }

    #[test]
    fn non_speech_tags_are_not_words() {
        assert_eq!(clean(" [BLANK_AUDIO]"), "");
        assert_eq!(clean(" Quarantine docs/old.log. (wind blowing)"), "Quarantine docs/old.log.");
        assert_eq!(clean("  scan   the folder "), "scan the folder");
    }
}
