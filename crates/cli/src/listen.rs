//! `smart listen`: the voice path from the command line — a WAV file, or the microphone with
//! push-to-talk on the Enter key (or the wake word).
//!
//! It is the same path the desktop app runs: the voice worker hears and transcribes, the
//! runtime checks for emergency words, the proposers propose and the kernel decides. The
//! command prints each state transition as it happens and, per utterance, where the time went:
//! the VAD's hangover (the silence it waits for before calling speech ended), whisper, and the
//! proposer plus the kernel.

use crate::output::{merge, print_json, print_report};
use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};
use smart_models::Models;
use smart_runtime::assistant::{AssistantError, Heard};
use smart_runtime::bus::BusEvent;
use smart_runtime::interaction::Trigger;
use smart_runtime::model_choice::{VoiceChoice, proposer_spec, voice_load};
use smart_runtime::rehearing::Rehear;
use smart_runtime::voice::{Voice, VoiceTimeouts, VoiceWorkerError, locate_voice_worker};
use smart_runtime::{Assistant, Bus, Engine, SayOptions, SayReport, TurnEnd, TurnId, VoiceTurns};
use smart_voice::protocol::{
    CaptureMode, DeviceStatus, Event, Loaded, Request, Transcript, VoiceErrorCode, WakeStatus,
};
use std::path::Path;
use std::time::Instant;
use tokio::io::AsyncBufReadExt;

pub struct ListenArgs<'a> {
    pub wav: Option<&'a Path>,
    /// Feed the WAV at the microphone's pace.
    pub paced: bool,
    pub propose_only: bool,
    pub no_templates: bool,
    pub wake: bool,
    pub choice: VoiceChoice,
    pub json: bool,
}

pub fn listen(engine: Engine, args: ListenArgs<'_>) -> Result<i32> {
    let models = Models::open_default().map_err(|e| anyhow!(e))?;
    let mut load = voice_load(&models, &args.choice).map_err(|e| anyhow!(e))?;
    // From the microphone, show what is being heard while the person talks.
    if args.wav.is_none() {
        load.partial_every_ms = Some(1_500);
    }
    let program = locate_voice_worker().map_err(|e| anyhow!(e))?;
    let data_dir = engine.data_dir().to_path_buf();
    let bus = Bus::default();
    let mut rx = bus.subscribe();
    let mut assistant = Assistant::new(engine, bus, proposer_spec(data_dir));
    let opts = SayOptions {
        propose_only: args.propose_only,
        no_templates: args.no_templates,
        base: std::env::current_dir().ok(),
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the runtime")?;
    let json = args.json;
    rt.block_on(async {
        let printer = async {
            while let Ok(env) = rx.recv().await {
                if !json {
                    print_step(&env.event);
                }
            }
        };
        let work = async {
            let started = Instant::now();
            let (mut voice, loaded) =
                Voice::start(&program, load, VoiceTimeouts::default()).await.map_err(|e| anyhow!(e))?;
            if !json {
                print_loaded(&loaded, started.elapsed().as_millis());
            }
            let r = match args.wav {
                Some(wav) => listen_file(&mut voice, &mut assistant, wav, args.wake, args.paced, &opts, json).await,
                None => listen_live(&mut voice, &mut assistant, &loaded, &opts, args.wake, json).await,
            };
            voice.shutdown().await;
            assistant.shutdown().await;
            drop(assistant);
            r
        };
        let (r, ()) = tokio::join!(work, printer);
        r
    })
}

fn print_loaded(l: &Loaded, ms: u128) {
    say!(
        "voice: {} ({}), whisper.cpp {}, ready in {ms} ms",
        l.whisper,
        if l.multilingual { "multilingual" } else { "English" },
        l.whisper_cpp
    );
    if l.expected_forms > 0 {
        say!("expecting: {} forms of the command words and the names under the roots", l.expected_forms);
    }
    match &l.wake {
        WakeStatus::Ready { phrase, engine } => say!("wake word: \"{phrase}\" (heard by {})", engine.name()),
        WakeStatus::Unavailable { reason } => say!("wake word: unavailable — {reason}"),
    }
    match &l.input {
        DeviceStatus::Available { name } => say!("microphone: {name}"),
        DeviceStatus::Unavailable { reason } => say!("microphone: none — {reason}"),
        DeviceStatus::Off => {}
    }
}

fn print_step(event: &BusEvent) {
    match event {
        BusEvent::StateChanged { from, to, trigger } => say!("  {from:?} → {to:?}  ({trigger:?})"),
        BusEvent::SpeechStart { at_ms } => say!("speech started at {:.2} s", *at_ms as f64 / 1000.0),
        BusEvent::SpeechEnd { at_ms } => say!("speech ended at {:.2} s", *at_ms as f64 / 1000.0),
        BusEvent::Wake { phrase } => say!("wake word \"{phrase}\" heard"),
        BusEvent::WakeRejected { heard } => say!("not addressed to SMART (no wake word): {heard:?}; ignored"),
        BusEvent::Partial { text } => say!("… {text}"),
        BusEvent::Heard { text, confidence, stt_ms } => {
            say!("heard: {text:?} (confidence {confidence:.2}, whisper {stt_ms} ms)")
        }
        BusEvent::Emergency { word } => say!("emergency word \"{word}\": everything stops"),
        BusEvent::Proposal { source, tool, args } => say!("proposal ({source:?}): {tool} {args}"),
        BusEvent::Reply { text } => say!("reply: {text}"),
        BusEvent::WorkerReady { model, load_ms, .. } => say!("proposer: {model} loaded in {load_ms} ms"),
        BusEvent::WorkerFault { reason, .. } => say!("proposer fault: {reason}"),
        BusEvent::IllegalTransition { from, trigger } => say!("  illegal transition {trigger:?} in {from:?} (reset)"),
        _ => {}
    }
}

/// One utterance's report: the transcript, then what came of it — as `smart say --json` shapes
/// it (`proposal` and the kernel's outcome keys at the top level), with the time per stage.
fn heard_json(turn: &TurnId, t: &Transcript, heard: &Heard, decide_ms: u128) -> Value {
    let mut out = json!({
        "corr": turn,
        "transcript": {
            "text": t.text, "confidence": t.confidence, "no_speech": t.no_speech, "language": t.language,
            "start_ms": t.start_ms, "end_ms": t.end_ms,
        },
        "timings": {
            "audio_ms": t.timings.audio_ms, "audio_ctx": t.timings.audio_ctx, "vad_ms": t.timings.vad_ms,
            "stt_ms": t.timings.stt_ms, "propose_and_decide_ms": decide_ms,
        },
    });
    // A paced file: whether whisper ran ahead of the end, and the latency measured.
    if let Some(after) = t.timings.after_end_ms {
        out["timings"]["transcribed_ahead"] = json!(t.timings.ahead);
        out["timings"]["end_of_speech_to_transcript_ms"] = json!(after);
    }
    // The second hearing's whisper time is inside `propose_and_decide_ms`: shown on its own.
    if let Heard::Turn(SayReport { reheard: Some(r), .. }) = heard {
        out["timings"]["reheard_stt_ms"] = json!(r.stt_ms);
        out["timings"]["reheard_audio_ctx"] = json!(r.audio_ctx);
    }
    // So is weighing what may have been meant (`smart_voice::weighed_names`).
    if let Heard::Turn(SayReport { weighed: Some(w), .. }) = heard {
        out["timings"]["weigh_ms"] = json!(w.ms);
    }
    match heard {
        Heard::Nothing => out["outcome"] = json!("nothing_heard"),
        Heard::Emergency { word, report } => {
            out["emergency_word"] = json!(word);
            match report {
                Some(r) => merge(&mut out, serde_json::to_value(r).unwrap_or(Value::Null)),
                None => out["outcome"] = json!("emergency_not_submitted"),
            }
        }
        Heard::Turn(r) => crate::assist::turn_fields(r, &mut out),
    }
    out
}

/// Hands a transcript to the assistant and reports what came of it; `voice` hears the
/// utterance again if its first reading is a question (`smart_runtime::rehearing`).
async fn act_on(
    assistant: &mut Assistant,
    turn: &TurnId,
    t: &Transcript,
    voice: &mut Voice,
    opts: &SayOptions,
    json: bool,
) -> Result<i32> {
    let started = Instant::now();
    let heard = assistant.hear_with(turn, t, opts, Some(voice as &mut dyn Rehear)).await.map_err(|e| match e {
        AssistantError::Worker(w) => anyhow!("the proposer failed: {w}; nothing was submitted"),
        other => anyhow!(other),
    })?;
    let decide_ms = started.elapsed().as_millis();
    // Let the printer show the turn's transitions before its outcome.
    for _ in 0..2 {
        tokio::task::yield_now().await;
    }
    if json {
        print_json(&heard_json(turn, t, &heard, decide_ms));
    } else {
        match &heard {
            Heard::Nothing => say!("nothing intelligible was heard"),
            Heard::Emergency { report: Some(report), .. } => print_report(report, "emergency", false),
            Heard::Emergency { word, report: None } => {
                say!("emergency word \"{word}\": not submitted (--propose-only)")
            }
            Heard::Turn(r) => {
                if let Some(again) = &r.reheard {
                    say!(
                        "heard again with the whole window: {:?} (whisper {} ms), read as {:?}",
                        again.text,
                        again.stt_ms,
                        r.utterance
                    );
                }
                for s in &r.steps {
                    if let Some(rep) = &s.report {
                        print_report(rep, &s.proposal.tool, false);
                    }
                }
                if r.ended == TurnEnd::ProposeOnly {
                    say!("not submitted (--propose-only)");
                }
            }
        }
        say!(
            "timings: speech {} ms; whisper {} ms on {} ms of audio (audio_ctx {}); VAD {} ms; proposer + kernel {decide_ms} ms",
            t.end_ms.saturating_sub(t.start_ms),
            t.timings.stt_ms,
            t.timings.audio_ms,
            t.timings.audio_ctx,
            t.timings.vad_ms
        );
        if let Some(after) = t.timings.after_end_ms {
            say!(
                "transcript ready {after} ms after the end of speech ({})",
                if t.timings.ahead {
                    "transcribed ahead, while the end was awaited"
                } else {
                    "transcribed after the end"
                }
            );
        }
    }
    Ok(match &heard {
        Heard::Turn(r) => r.steps.first().and_then(|s| s.report.as_ref()).map(crate::output::exit_code).unwrap_or(0),
        Heard::Emergency { report, .. } => report.as_ref().map(crate::output::exit_code).unwrap_or(0),
        Heard::Nothing => 0,
    })
}

async fn listen_file(
    voice: &mut Voice,
    assistant: &mut Assistant,
    wav: &Path,
    wake: bool,
    paced: bool,
    opts: &SayOptions,
    json: bool,
) -> Result<i32> {
    if !wav.is_file() {
        return Err(anyhow!("{} does not exist", wav.display()));
    }
    let id = voice
        .send(Request::TranscribeFile { path: wav.display().to_string(), wake, paced })
        .await
        .map_err(|e| anyhow!(e))?;
    // One request per utterance: its speech events, the turn and its ledger events share the id
    // (`smart_runtime::voice_turns` cuts the stream); the next speech is a new request.
    let mut turns = VoiceTurns::new(wake);
    let mut code = 0;
    let mut utterances = 0;
    let mut rejected = 0;
    loop {
        let Some(line) = voice.next_event(None).await.map_err(|e| anyhow!(e))? else { continue };
        if line.id != id {
            continue;
        }
        match &line.event {
            Event::Transcript(t) => {
                utterances += 1;
                let corr = turns.on(&line.event);
                let c = act_on(assistant, &corr, t, voice, opts, json).await?;
                turns.finished();
                if code == 0 {
                    code = c;
                }
            }
            Event::Done { audio_ms } => {
                if utterances == 0 && rejected > 0 {
                    if json {
                        print_json(
                            &json!({"transcript": null, "outcome": "not_addressed", "rejected": rejected, "audio_ms": audio_ms}),
                        );
                    } else {
                        say!(
                            "nothing in {} was addressed to SMART: {rejected} stretch(es) of speech did not begin with the wake phrase",
                            wav.display()
                        );
                    }
                } else if utterances == 0 {
                    if json {
                        print_json(&json!({"transcript": null, "outcome": "nothing_heard", "audio_ms": audio_ms}));
                    } else {
                        say!("no speech found in {} ({audio_ms} ms of audio)", wav.display());
                    }
                }
                return Ok(code);
            }
            Event::Error(e) => return Err(anyhow!("{}: {e}", wav.display())),
            other => {
                let trigger = if wake { Trigger::WakeWord } else { Trigger::VoiceActivity };
                assistant.voice_event(turns.on(other).as_str(), other, trigger);
                if matches!(other, Event::WakeRejected { .. }) {
                    rejected += 1;
                }
            }
        }
    }
}

async fn listen_live(
    voice: &mut Voice,
    assistant: &mut Assistant,
    loaded: &Loaded,
    opts: &SayOptions,
    wake: bool,
    json: bool,
) -> Result<i32> {
    if let DeviceStatus::Unavailable { reason } = &loaded.input {
        return Err(anyhow!(
            "cannot listen: {reason}. Everything else works without one: `smart listen --wav FILE` runs the voice path on a recording, `smart say TEXT` the text path"
        ));
    }
    let mode = if wake { CaptureMode::WakeWord } else { CaptureMode::PushToTalk };
    voice.call(Request::StartCapture { mode }).await.map_err(|e| match e {
        VoiceWorkerError::Answered(ve) if ve.code == VoiceErrorCode::WakeUnavailable => {
            anyhow!("{ve}. Run `smart listen` without --wake for push-to-talk")
        }
        other => anyhow!(other),
    })?;
    let trigger = if wake { Trigger::WakeWord } else { Trigger::PushToTalk };
    if !json {
        if wake {
            say!("listening for the wake word; Ctrl-D to quit");
        } else {
            say!("press Enter to start talking, Enter again when done; Ctrl-D to quit");
        }
    }
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut held = false;
    let mut turns = VoiceTurns::new(wake);
    loop {
        enum Input {
            Key(std::io::Result<Option<String>>),
            Voice(Result<Option<smart_voice::protocol::EventLine>, VoiceWorkerError>),
        }
        let input = tokio::select! {
            line = stdin.next_line() => Input::Key(line),
            ev = voice.next_event(None) => Input::Voice(ev),
        };
        match input {
            Input::Key(Ok(Some(_))) if !wake => {
                held = !held;
                if held {
                    let corr = turns.pressed().clone();
                    assistant.voice_event(corr.as_str(), &Event::SpeechStart { at_ms: 0 }, trigger);
                }
                voice.call(Request::PushToTalk { down: held }).await.map_err(|e| anyhow!(e))?;
                if !json {
                    say!("{}", if held { "listening… (Enter to stop)" } else { "stopped listening" });
                }
            }
            Input::Key(Ok(Some(_))) => {}
            Input::Key(_) => return Ok(0),
            Input::Voice(ev) => {
                let Some(line) = ev.map_err(|e| anyhow!(e))? else { continue };
                match &line.event {
                    // An utterance is the worker's own news (id 0); a transcript with an id
                    // answers a request (a second hearing that came too late) and is no turn.
                    Event::Transcript(t) if line.id == 0 => {
                        let corr = turns.on(&line.event);
                        act_on(assistant, &corr, t, voice, opts, json).await?;
                        turns.finished();
                    }
                    Event::Transcript(_) => {}
                    Event::InputLost { reason } => return Err(anyhow!("the microphone stopped: {reason}")),
                    Event::Level { .. } => {}
                    other => assistant.voice_event(turns.on(other).as_str(), other, trigger),
                }
            }
        }
    }
}
