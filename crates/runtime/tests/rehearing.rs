//! A heard utterance whose reading is a question is heard again, and the second hearing is
//! taken only when its reading is a call (`smart_runtime::rehearing`); one whose reading is no
//! call at all is not heard again.
//!
//! The second hearing here is given (a [`Rehear`] that answers what it is told to), so the
//! tests are about the assistant's choice, not about whisper; the worker side is tested in
//! `crates/voice-worker/tests/rehear.rs`. Every reading below is one the phrase templates
//! answer, so no model is needed: the assistant's model factory counts how often it is asked
//! (never, each test checks) and fails.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use smart_runtime::assistant::{AssistantError, Heard};
use smart_runtime::rehearing::Rehear;
use smart_runtime::{Assistant, Bus, BusEvent, SayOptions, SayReport};
use smart_voice::protocol::Transcript;
use smart_voice::weighed_names::Weight;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Answers each second hearing with `answer` (once), and notes which utterance it was asked
/// about.
struct Given {
    answer: Option<&'static str>,
    asked: Vec<(u64, u64)>,
    /// When set, what weighing finds: the transcript as written, and a text naming
    /// newsletter.json in place of "tools, letter.json"; every other text far less likely.
    weights: Option<(f32, f32)>,
    /// The texts each weighing was asked about.
    weighed: Vec<Vec<String>>,
    /// What weighing finds for "tools letter.json" without the comma whisper wrote (the
    /// newsletter.json way's control).
    control: f32,
    /// When set, a text that begins so is found as likely as the newsletter.json way.
    likelier: Option<&'static str>,
}

impl Given {
    fn new(answer: Option<&'static str>) -> Given {
        Given { answer, asked: vec![], weights: None, weighed: vec![], control: -50.0, likelier: None }
    }
}

impl Rehear for Given {
    fn rehear<'a>(
        &'a mut self,
        first: &'a Transcript,
    ) -> Pin<Box<dyn Future<Output = Option<Transcript>> + Send + 'a>> {
        self.asked.push((first.start_ms, first.end_ms));
        let t = self.answer.take().map(|text| Transcript { text: text.into(), ..heard("", 0) });
        Box::pin(async move { t })
    }

    fn weigh<'a>(
        &'a mut self,
        first: &'a Transcript,
        texts: &'a [String],
    ) -> Pin<Box<dyn Future<Output = Option<Vec<Weight>>> + Send + 'a>> {
        self.weighed.push(texts.to_vec());
        let (control, likelier) = (self.control, self.likelier);
        let scores = self.weights.map(|(written, named)| {
            texts
                .iter()
                .map(|t| match t {
                    t if *t == first.text => written,
                    t if likelier.is_some_and(|l| t.starts_with(l)) => named,
                    t if t.contains("newsletter.json") && !t.contains("tools") => named,
                    t if t.contains("tools letter.json") => control,
                    _ => -50.0,
                })
                .map(|logp| Weight { logp, tokens: 8 })
                .collect()
        });
        Box::pin(async move { scores })
    }
}

fn heard(text: &str, start_ms: u64) -> Transcript {
    common::transcript(text, start_ms)
}

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    a: Assistant,
    /// How often the assistant asked for a model.
    models: Arc<AtomicUsize>,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    for f in ["inbox/a.txt", "docs/notes.txt", "old/notes.txt", "newsletter.json"] {
        std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
        std::fs::write(root.join(f), "x").unwrap();
    }
    let root = dunce::canonicalize(root).unwrap();
    let engine = common::engine(&tmp.path().join("data"), &root, None);
    let models = Arc::new(AtomicUsize::new(0));
    let asked = models.clone();
    let no_model = Box::new(move || {
        asked.fetch_add(1, Ordering::SeqCst);
        Err(AssistantError::NothingToPerceive)
    });
    Setup { _tmp: tmp, root, a: Assistant::new(engine, Bus::default(), no_model), models }
}

impl Setup {
    fn models_asked(&self) -> usize {
        self.models.load(Ordering::SeqCst)
    }
}

fn hear(a: &mut Assistant, root: &Path, t: &Transcript, again: Option<&mut Given>) -> SayReport {
    common::hear(a, root, t, again.map(|g| g as &mut dyn Rehear))
}

fn tool(r: &SayReport) -> Option<&str> {
    r.steps.first().map(|s| s.proposal.tool.as_str())
}

#[test]
fn a_first_hearing_that_asks_takes_a_second_hearing_that_reads_as_a_call() {
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let mut rx = a.bus().subscribe();
    // Two files are called notes.txt: the first reading asks which.
    let mut again = Given::new(Some("Hash docs slash notes dot txt."));
    let r = hear(a, &root, &heard("Hash notes dot txt.", 4_000), Some(&mut again));
    assert_eq!(again.asked, vec![(4_000, 6_000)], "asked about the utterance that was heard");
    assert_eq!(tool(&r), Some("fs.hash"), "{r:?}");
    // Understanding writes paths with `/` on every system (`C:/Users/…` on Windows).
    assert_eq!(r.steps[0].proposal.args["path"], smart_kernel::slash_path(&root.join("docs/notes.txt")));
    let reheard = r.reheard.as_ref().map(|h| h.text.as_str());
    assert_eq!(reheard, Some("Hash docs slash notes dot txt."));
    assert_eq!(r.utterance, "Hash docs/notes.txt", "the turn is read from the second hearing");
    // The person sees what was heard the second time.
    let mut heard_lines = vec![];
    while let Ok(env) = rx.try_recv() {
        if let BusEvent::Heard { text, .. } = env.event {
            heard_lines.push(text);
        }
    }
    assert_eq!(heard_lines, vec!["Hash docs slash notes dot txt.".to_string()]);
    assert_eq!(s.models_asked(), 0);
}

/// Heard again, chatter and noise read as no call mostly come back as some other garble, and
/// the model reads a request into it ("turn up the volume" heard again became a move): a
/// call nobody asked for is worse than none, so no call is final.
#[test]
fn a_first_hearing_that_reads_as_no_call_is_not_heard_again() {
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let mut again = Given::new(Some("Hash inbox slash a dot txt."));
    let r = hear(a, &root, &heard("Um.", 0), Some(&mut again));
    assert!(again.asked.is_empty(), "no call was heard again");
    assert_eq!(r.ended, smart_runtime::TurnEnd::NoCall, "{r:?}");
    assert_eq!(r.reheard, None);
}

#[test]
fn a_second_hearing_that_is_no_clearer_leaves_the_first_reading_standing() {
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    for second in [Some("quarantine notes dot txt please"), Some("uh"), Some(""), None] {
        let mut again = Given::new(second);
        let r = hear(a, &root, &heard("quarantine notes dot txt", 0), Some(&mut again));
        assert_eq!(again.asked.len(), 1);
        assert_eq!(r.ended, smart_runtime::TurnEnd::Asked, "second hearing {second:?}: {r:?}");
        assert!(r.reply.as_deref().unwrap_or_default().contains("notes.txt"), "{r:?}");
        assert_eq!(r.reheard, None);
        assert_eq!(r.utterance, "quarantine notes.txt");
    }
}

#[test]
fn a_call_is_not_heard_again_nor_a_question_without_a_way_to_hear_again() {
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let mut again = Given::new(Some("quarantine inbox slash a dot txt"));
    let r = hear(a, &root, &heard("Hash inbox slash a dot txt.", 0), Some(&mut again));
    assert_eq!(tool(&r), Some("fs.hash"));
    assert!(again.asked.is_empty(), "a call was understood the first time");
    assert_eq!(r.reheard, None);
    // Without a way to hear again, a heard question stays a question.
    let r = hear(a, &root, &heard("quarantine notes dot txt", 0), None);
    assert_eq!(r.ended, smart_runtime::TurnEnd::Asked);
}

/// A second hearing is never a way in for an emergency word the first did not hear: the
/// emergency gate takes only what the person was first heard to say.
#[test]
fn an_emergency_word_in_the_second_hearing_is_not_acted_on() {
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let stance = format!("{:?}", a.engine().state().stance);
    let mut again = Given::new(Some("stop"));
    let r = hear(a, &root, &heard("quarantine notes dot txt", 0), Some(&mut again));
    assert_eq!(again.asked.len(), 1);
    assert_eq!(r.ended, smart_runtime::TurnEnd::Asked, "{r:?}");
    assert_eq!(r.reheard, None);
    assert_eq!(format!("{:?}", a.engine().state().stance), stance, "nothing was stopped");
    assert_eq!(s.models_asked(), 0, "\"stop\" heard the second time was not even read as a request");
}

/// A second hearing is a step of the request it hears again: the speech events, both hearings,
/// the proposal, the kernel's events and the receipt all carry the id made where the speech
/// began (`smart_runtime::turn_id`) — what the HUD's live line showed is what the ledger holds.
#[test]
fn a_turn_heard_twice_keeps_the_id_its_speech_began_with() {
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let mut rx = a.bus().subscribe();
    let before = a.engine().state().seq;
    let turn = smart_runtime::TurnId::new();
    let trigger = smart_runtime::interaction::Trigger::VoiceActivity;
    a.voice_event(turn.as_str(), &smart_voice::protocol::Event::SpeechStart { at_ms: 4_000 }, trigger);
    a.voice_event(
        turn.as_str(),
        &smart_voice::protocol::Event::SpeechEnd { at_ms: 6_000, decided_ms: 6_300, speech_ms: 2_000 },
        trigger,
    );
    let mut again = Given::new(Some("Hash docs slash notes dot txt."));
    let first = heard("Hash notes dot txt.", 4_000);
    let run = SayOptions { propose_only: false, ..common::propose_only(&root) };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let r = match rt.block_on(a.hear_with(&turn, &first, &run, Some(&mut again as &mut dyn Rehear))).unwrap() {
        Heard::Turn(r) => r,
        other => panic!("not a turn: {other:?}"),
    };
    assert_eq!(r.corr, turn);
    assert_eq!(r.steps[0].report.as_ref().map(|o| o.outcome), Some(smart_runtime::CallOutcome::Committed), "{r:?}");
    let mut envelopes = 0;
    while let Ok(env) = rx.try_recv() {
        assert_eq!(env.corr, turn.as_str(), "{:?}", env.event);
        envelopes += 1;
    }
    assert!(envelopes > 5, "the turn announced its steps");
    let mut written = vec![];
    a.engine()
        .ledger()
        .for_each_from(before + 1, |row| {
            written.push((row.kind.clone(), row.corr.clone()));
            true
        })
        .unwrap();
    assert!(written.iter().any(|(k, _)| k == "committed"), "{written:?}");
    assert!(written.iter().all(|(_, c)| c == turn.as_str()), "{written:?}");
}

#[test]
fn a_name_weighed_likelier_than_what_whisper_wrote_is_read_instead() {
    // What broke: "delete newsletter.json" heard "Delete tools, letter.json." — too far from the
    // name for the transcript alone, clearly the name to whisper weighing it against the audio.
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let mut again = Given { weights: Some((-14.9, -5.8)), ..Given::new(None) };
    let r = hear(a, &root, &heard("Hash tools, letter.json.", 0), Some(&mut again));
    let weighed = again.weighed.first().cloned().unwrap_or_default();
    assert_eq!(
        weighed.first().map(String::as_str),
        Some("Hash tools, letter.json."),
        "what was written is weighed too"
    );
    assert!(weighed.iter().any(|t| t == "Hash newsletter.json."), "{weighed:?}");
    assert_eq!(tool(&r), Some("fs.hash"), "{r:?}");
    assert_eq!(r.steps[0].proposal.args["path"], smart_kernel::slash_path(&root.join("newsletter.json")));
    let w = r.weighed.as_ref().unwrap();
    assert_eq!(w.taken.as_deref(), Some("Hash newsletter.json."));
    assert_eq!(w.name.as_deref(), Some("newsletter.json"));
    assert!((w.gain - 9.1).abs() < 0.01, "{w:?}");
    assert!(w.alternatives >= 1, "{w:?}");
    // The way's control (the words it replaces, punctuated as it is) is weighed too, and
    // every text's weight is kept, what was written first, for a replay to choose from again.
    assert!(weighed.iter().any(|t| t == "Hash tools letter.json."), "{weighed:?}");
    let kept: Vec<&str> = w.weights.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(kept, weighed.iter().map(String::as_str).collect::<Vec<_>>());
    assert!((w.weights[0].logp + 14.9).abs() < 0.01, "{w:?}");
    assert_eq!(s.models_asked(), 0);
}

#[test]
fn an_opening_weighed_likelier_than_what_whisper_wrote_is_read_instead() {
    // What broke: "get rid of …" heard "Get read on …" reads as no request of ours; whisper,
    // weighing "Get rid of …" against the audio, finds it clearly likelier.
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let mut again = Given { weights: Some((-14.9, -5.8)), likelier: Some("Get rid of"), ..Given::new(None) };
    let r = hear(a, &root, &heard("Get read on inbox slash a.txt.", 0), Some(&mut again));
    let weighed = again.weighed.first().cloned().unwrap_or_default();
    assert!(weighed.iter().any(|t| t == "Get rid of inbox slash a.txt."), "{weighed:?}");
    let w = r.weighed.as_ref().unwrap();
    assert_eq!(w.taken.as_deref(), Some("Get rid of inbox slash a.txt."));
    assert_eq!(w.name.as_deref(), Some("get rid of"));
    assert_eq!(tool(&r), Some("fs.quarantine"), "{r:?}");
    assert_eq!(s.models_asked(), 0);
}

/// A name far likelier than what whisper wrote, but no likelier than the words it replaces
/// punctuated as it is, was likelier only for the punctuation: what whisper wrote stands.
#[test]
fn a_name_no_likelier_than_the_words_it_replaces_is_not_read() {
    let mut s = setup();
    let (root, a) = (s.root.clone(), &mut s.a);
    let mut again = Given { weights: Some((-14.9, -5.8)), control: -5.6, ..Given::new(None) };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let t = heard("Hash tools, letter.json.", 0);
    let r = rt.block_on(a.hear_with(&smart_runtime::TurnId::new(), &t, &common::propose_only(&root), Some(&mut again)));
    assert_eq!(again.weighed.len(), 1);
    // Weighed, and nothing taken: read as written, the sentence names no file, so the turn
    // needs the model, which this assistant lacks (taken, the templates hash newsletter.json).
    assert!(matches!(r, Err(AssistantError::NothingToPerceive)), "{r:?}");
}

#[test]
fn what_whisper_wrote_stands_when_no_name_is_clearly_likelier_or_nothing_can_be_weighed() {
    let mut s = setup();
    let root = s.root.clone();
    let models = s.models.clone();
    let a = &mut s.a;
    for weights in [Some((-6.0, -5.8)), Some((-5.0, -9.0)), None] {
        let mut again = Given { weights, ..Given::new(None) };
        let before = models.load(Ordering::SeqCst);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let t = heard("Hash tools, letter.json.", 0);
        let r =
            rt.block_on(a.hear_with(&smart_runtime::TurnId::new(), &t, &common::propose_only(&root), Some(&mut again)));
        assert_eq!(again.weighed.len(), 1, "{weights:?}");
        assert_eq!(
            r.as_ref().ok().and_then(|h| match h {
                Heard::Turn(t) => t.weighed.clone(),
                _ => None,
            }),
            None
        );
        // Read as written, the sentence names no file: the templates cannot answer it, and
        // the model (which this assistant has not) is asked — not the newsletter.json guessed.
        assert!(matches!(r, Err(AssistantError::NothingToPerceive)), "{weights:?}: {r:?}");
        assert_eq!(models.load(Ordering::SeqCst), before + 1, "{weights:?}");
    }
    // A transcript that sounds like no name is not weighed at all.
    let mut again = Given { weights: Some((-5.0, -1.0)), ..Given::new(None) };
    let r = hear(a, &root, &heard("Hash docs slash notes dot txt.", 0), Some(&mut again));
    assert!(again.weighed.is_empty(), "{:?}", again.weighed);
    assert_eq!(tool(&r), Some("fs.hash"), "{r:?}");
}
