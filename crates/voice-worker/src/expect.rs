//! The one place the worker reaches into whisper.cpp by hand: its logits hook, through which
//! the expected phrases ([`smart_voice::bias`]) shape every decoding step, and a loop whisper
//! has fallen into is not continued ([`smart_voice::bias::loop_continuation`]).
//!
//! whisper.cpp calls a C function pointer with the decoder's tokens so far and the next-token
//! logits; whisper-rs passes that pointer through without a safe wrapper. This module is the
//! crate's only `unsafe` (the workspace forbids it elsewhere): it turns the raw pointers into
//! slices of the lengths whisper.cpp states, reads the [`Expectation`] it was given by
//! reference, and never panics (a panic may not unwind into C). Everything it decides is in
//! `smart_voice::bias`, tested without whisper.
#![allow(unsafe_code)]

use smart_voice::bias::{Boost, Opening, PhraseTrie, loop_continuation, surface_forms};
use smart_voice::protocol::Expect;
use std::ffi::{c_int, c_void};
use whisper_rs::{FullParams, WhisperContext, WhisperSysContext, WhisperSysState, WhisperTokenData};

/// The expected phrases as whisper's token ids, and how much to prefer them.
pub struct Expectation {
    trie: PhraseTrie,
    /// How many written forms were put in the trie.
    pub forms: usize,
    boost: Boost,
    n_vocab: usize,
    /// Tokens below this id are text; the rest are whisper's control tokens.
    eot: i32,
}

impl Expectation {
    /// Tokenizes every way each phrase is written. A phrase's first token is boosted anywhere
    /// only when it is a whole word of three letters or more: " Rep" of " Rep|lace" would pull
    /// "prepare" to "Repair", and " a" of " a.pdf" would pull every sentence towards "a". A
    /// first token of one or two letters is no sign the phrase has begun: only an extension
    /// follows it (" a" ".pdf"), not " to" "do" of `todo.xlsx`.
    pub fn build(ctx: &WhisperContext, expect: &Expect) -> Result<Expectation, String> {
        let mut trie = PhraseTrie::new();
        let mut forms = 0;
        let text = |t: i32| ctx.token_to_str_lossy(t).map(|s| s.into_owned()).unwrap_or_default();
        for form in surface_forms(&expect.phrases) {
            let tokens = ctx.tokenize(&form, 64).map_err(|e| format!("whisper could not tokenize {form:?}: {e:?}"))?;
            let Some(&first) = tokens.first() else { continue };
            let letters = text(first).chars().filter(|c| c.is_alphabetic()).count();
            let second = tokens.get(1).map(|&next| text(next));
            let whole_word = second.as_ref().is_none_or(|next| next.starts_with([' ', '.']));
            let extension_next = second.as_ref().is_some_and(|next| next.starts_with('.'));
            trie.insert(
                &tokens,
                Opening { boosted: letters >= 3 && whole_word, continued: letters >= 3 || extension_next },
            );
            forms += 1;
        }
        Ok(Expectation {
            trie,
            forms,
            boost: expect.boost,
            n_vocab: usize::try_from(ctx.n_vocab()).unwrap_or(0),
            eot: ctx.token_eot(),
        })
    }

    /// Makes whisper call [`Hook::apply`] with `self` on every step of the next `full` run
    /// with `params`. `self` must outlive that run: [`crate::stt::Stt`] owns both and runs
    /// whisper within one borrow of itself.
    pub fn install(&self, params: &mut FullParams) {
        install(self, params);
    }
}

/// What whisper.cpp's logits hook runs: [`Expectation`]'s bias. It only reads through `&self`,
/// writes into the logits slice whisper.cpp sized, and cannot panic.
trait Hook {
    fn n_vocab(&self) -> usize;
    fn apply(&self, history: &[WhisperTokenData], logits: &mut [f32]);
}

impl Hook for Expectation {
    fn n_vocab(&self) -> usize {
        self.n_vocab
    }

    fn apply(&self, history: &[WhisperTokenData], logits: &mut [f32]) {
        // Only the text decoded so far counts (timestamps and control tokens are not words).
        let text: Vec<i32> = history.iter().map(|t| t.id).filter(|&id| id < self.eot).collect();
        self.trie.apply(&text, self.boost, logits);
        if let Some(l) = loop_continuation(&text).and_then(|t| usize::try_from(t).ok()).and_then(|i| logits.get_mut(i))
        {
            *l = f32::NEG_INFINITY;
        }
    }
}

/// Makes whisper call [`logits_hook`] with `hook` on every step of the next `full` run with
/// `params`; `hook` must outlive that run (each caller holds it across the run).
fn install<H: Hook>(hook: &H, params: &mut FullParams) {
    // SAFETY: the pointer is to `hook`, which outlives the run (above); the hook is used only
    // through `&H`.
    unsafe {
        params.set_filter_logits_callback(Some(logits_hook::<H>));
        params.set_filter_logits_callback_user_data(hook as *const H as *mut c_void);
    }
}

/// whisper.cpp's `whisper_logits_filter_callback`, running the [`Hook`] it was installed with.
unsafe extern "C" fn logits_hook<H: Hook>(
    _ctx: *mut WhisperSysContext,
    _state: *mut WhisperSysState,
    tokens: *const WhisperTokenData,
    n_tokens: c_int,
    logits: *mut f32,
    user_data: *mut c_void,
) {
    if user_data.is_null() || logits.is_null() {
        return;
    }
    // SAFETY: `user_data` is the `H` that `install` registered and that outlives the run;
    // `logits` holds `n_vocab` floats for this decoder (whisper.cpp's contract); `tokens` holds
    // `n_tokens` entries when not null.
    let hook = unsafe { &*(user_data as *const H) };
    let logits = unsafe { std::slice::from_raw_parts_mut(logits, hook.n_vocab()) };
    let history = match usize::try_from(n_tokens) {
        Ok(n) if n > 0 && !tokens.is_null() => unsafe { std::slice::from_raw_parts(tokens, n) },
        _ => &[],
    };
    hook.apply(history, logits);
}
