//! Voice latency: from the end of speech to a proposal, split per stage, for a ~3 s spoken
//! command — and the same audio through whisper.cpp alone for comparison.
//!
//! The product target is 800 ms from the moment the person stops talking to a proposal on a
//! 2-core machine. The stages measured here, in order:
//! 1. **endpoint**: the silence the VAD waits for before it calls the speech ended (a setting,
//!    `min_silence_ms`, plus up to one VAD step; zero with push-to-talk, where the key release
//!    is the end);
//! 2. **whisper**: the transcription of the utterance with our trimmed encoder window (wall time
//!    in the worker);
//! 3. **proposer + kernel**: `Assistant::hear` in propose-only mode — the phrase templates when
//!    they answer, the model worker when they do not (both measured).
//!
//! Stages 1 and 2 overlap when the worker transcribes ahead (the utterance's window is fixed
//! once the silence reaches the end padding, before the VAD decides the end): the recording is
//! then also fed at the microphone's pace, with transcribing ahead off and on, and the time from
//! the end of speech to the transcript is *measured* (`timings.after_end_ms`), not added up.
//!
//! The comparison row runs whisper.cpp on the same 16 kHz audio with its default 30-second
//! window and nothing of ours around it (`smart-voice-worker --stt-bench`).
//!
//! The speech is made here with espeak-ng; the models come from the models folder.

use crate::Summary;
use anyhow::{Context, Result, anyhow, bail};
use smart_models::Models;
use smart_runtime::engine::InitOptions;
use smart_runtime::model_choice::{VoiceChoice, folder_vocabulary, proposer_spec, voice_load};
use smart_runtime::voice::{Voice, VoiceTimeouts, locate_voice_worker};
use smart_runtime::{Assistant, Bus, Engine, SayOptions};
use smart_voice::protocol::Event;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const COMMAND: &str = "show me what is in the reports folder";

fn sh(cmd: &mut Command) -> Result<String> {
    let out =
        cmd.output().with_context(|| format!("cannot run {cmd:?} (scripts/setup.sh installs espeak-ng and sox)"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The command spoken at 16 kHz, with half a second of silence before and a second after.
fn recording(dir: &Path) -> Result<(PathBuf, f64)> {
    let raw = dir.join("raw.wav");
    let wav = dir.join("command.wav");
    sh(Command::new("espeak-ng").args(["-v", "en-us", "-s", "115", "-w"]).arg(&raw).arg(COMMAND))?;
    sh(Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16"])
        .arg(&wav)
        .args(["pad", "0.5", "1.0"]))?;
    let speech = sh(Command::new("soxi").arg("-D").arg(&raw))?.trim().parse::<f64>().unwrap_or(0.0);
    Ok((wav, speech))
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
}

pub fn run(quick: bool, s: &mut Summary) -> Result<()> {
    let models = Models::open_default()?;
    let Ok(load) = voice_load(&models, &VoiceChoice::default()) else {
        println!(
            "\n== voice: skipped — the voice models are not downloaded (smart models fetch whisper-tiny.en silero-vad)"
        );
        s.add("voice", "skipped: models not downloaded".into());
        return Ok(());
    };
    let tmp = tempfile::tempdir()?;
    let (wav, speech_s) = recording(tmp.path())?;
    let root = dunce::canonicalize(tmp.path())?.join("root");
    std::fs::create_dir_all(root.join("reports"))?;
    std::fs::write(root.join("reports/q3.txt"), "q3")?;
    let mut load = load;
    load.prompt = Some(smart_runtime::model_choice::whisper_prompt(&folder_vocabulary(&root)));
    let not_ahead = smart_voice::protocol::LoadVoice { transcribe_ahead: false, ..load.clone() };
    let whisper = load.whisper.clone();
    let program = locate_voice_worker().map_err(|e| anyhow!(e))?;
    println!(
        "\n== voice: {:.2} s command \"{COMMAND}\", {} through smart-voice-worker",
        speech_s,
        Path::new(&whisper).file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
    );

    let (engine, _) = Engine::init(
        &tmp.path().join("data"),
        InitOptions { roots: vec![root.clone()], policy: None, key_store: Some(smart_signals::KeyStoreKind::File) },
        Box::new(smart_runtime::clock::SystemClock),
    )?;
    let mut assistant = Assistant::new(engine, Bus::default(), proposer_spec(tmp.path().join("data")));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let rounds = if quick { 1 } else { 5 };
    let (mut hangover, mut stt, mut templates, mut model, mut ctx) = (vec![], vec![], vec![], vec![], 0);
    let (mut again, mut weighing) = (vec![], vec![]);
    let (mut paced_after, mut paced_ahead) = (vec![], vec![]);
    let mut heard = String::new();
    rt.block_on(async {
        let t = Instant::now();
        let (mut voice, loaded) =
            Voice::start(&program, load, VoiceTimeouts::default()).await.map_err(|e| anyhow!(e))?;
        println!("worker ready in {:.0} ms (whisper load {} ms)", t.elapsed().as_secs_f64() * 1000.0, loaded.load_ms);
        for round in 0..rounds {
            let mut ends = vec![];
            let transcripts = voice
                .transcribe_file(&wav, |e| {
                    if let Event::SpeechEnd { at_ms, decided_ms, .. } = e {
                        ends.push((*decided_ms - *at_ms) as f64);
                    }
                })
                .await
                .map_err(|e| anyhow!(e))?;
            let Some(tr) = transcripts.first() else { bail!("no speech found in the benchmark's recording") };
            hangover.extend(ends);
            stt.push(tr.timings.stt_ms as f64);
            ctx = tr.timings.audio_ctx;
            heard = tr.text.clone();
            // What a second hearing costs the utterances whose first reading is a question
            // (`smart_runtime::rehearing`): the same audio, whisper's whole window.
            let t = Instant::now();
            voice.rehear(tr).await.map_err(|e| anyhow!(e))?;
            again.push(t.elapsed().as_secs_f64() * 1000.0);
            // What weighing costs an utterance whose words sound loosely like names
            // (`smart_voice::weighed_names`): what was written and six ways it may have been
            // meant, on the state that heard it.
            let ways = weighed_texts(&tr.text);
            let t = Instant::now();
            voice.weigh(tr, &ways).await.map_err(|e| anyhow!(e))?;
            weighing.push(t.elapsed().as_secs_f64() * 1000.0);
            for (no_templates, into) in [(false, &mut templates), (true, &mut model)] {
                if no_templates && quick && round > 0 {
                    continue;
                }
                let opts = SayOptions { propose_only: true, no_templates, base: Some(root.clone()) };
                let t = Instant::now();
                let h = assistant.hear(tr, &opts).await.map_err(|e| anyhow!(e))?;
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                // The model's first turn includes loading it: measured separately below.
                if !(no_templates && round == 0) || quick {
                    into.push(ms);
                }
                if round == 0 {
                    let what = match &h {
                        smart_runtime::assistant::Heard::Turn(r) => {
                            r.steps.first().map(|s| s.proposal.tool.clone()).unwrap_or_else(|| "no call".into())
                        }
                        other => format!("{other:?}"),
                    };
                    println!("  {} → {what} in {ms:.0} ms", if no_templates { "model" } else { "templates" });
                }
            }
        }
        // At the microphone's pace: transcribed ahead (this worker), then a worker told not to.
        let paced_rounds = if quick { 1 } else { 3 };
        paced_ahead = paced(&mut voice, &wav, paced_rounds, true).await?;
        voice.shutdown().await;
        let (mut voice, _) =
            Voice::start(&program, not_ahead, VoiceTimeouts::default()).await.map_err(|e| anyhow!(e))?;
        paced_after = paced(&mut voice, &wav, paced_rounds, false).await?;
        voice.shutdown().await;
        assistant.shutdown().await;
        Ok::<(), anyhow::Error>(())
    })?;
    println!("heard: {heard:?}");

    let alone = sh(Command::new(&program).arg("--stt-bench").arg(&whisper).arg(&wav).arg("2"))?;
    let alone: serde_json::Value = serde_json::from_str(alone.trim())?;
    let full_ms = alone["full_window"]["ms"].as_f64().unwrap_or(0.0);
    let trimmed_ms = alone["trimmed"]["ms"].as_f64().unwrap_or(0.0);

    let (h, w, tp, mp) = (mean(&hangover), mean(&stt), mean(&templates), mean(&model));
    let (ag, wg) = (mean(&again), mean(&weighing));
    let (after, ahead) = (mean(&paced_after), mean(&paced_ahead));
    println!("| stage | mean of {rounds} |");
    println!("|---|---|");
    println!("| endpoint (VAD hangover after the last word) | {h:.0} ms |");
    println!("| whisper, trimmed window (audio_ctx {ctx}) | {w:.0} ms |");
    println!("| proposer + kernel, templates | {tp:.1} ms |");
    println!("| proposer + kernel, model (warm) | {mp:.0} ms |");
    println!(
        "| end of speech → transcript at the microphone's pace, whisper after the end (measured) | {after:.0} ms |"
    );
    println!("| end of speech → transcript at the microphone's pace, transcribed ahead (measured) | {ahead:.0} ms |");
    println!("| end of speech → proposal, templates (stages added, whisper after the end) | {:.0} ms |", h + w + tp);
    println!("| end of speech → proposal, model (stages added, whisper after the end) | {:.0} ms |", h + w + mp);
    println!("| end of speech → proposal, templates (measured, transcribed ahead) | {:.0} ms |", ahead + tp);
    println!("| end of speech → proposal, model (measured, transcribed ahead) | {:.0} ms |", ahead + mp);
    // A key let go at once after the last word; one let go later finds whisper at work, or done
    // (the worker's live push-to-talk test shows 6-22 ms from a release ~0.5 s after the speech).
    println!("| push-to-talk release right after the last word → proposal, templates | {:.0} ms |", w + tp);
    println!("| a second hearing, whole window (only when the first reading is a question) | {ag:.0} ms |");
    println!("| weighing what was written and six ways it may have been meant (when any) | {wg:.0} ms |");
    println!("| whisper.cpp alone, default 30 s window | {full_ms:.0} ms |");
    println!("| whisper.cpp alone, our trimmed window | {trimmed_ms:.0} ms |");
    s.add(
        "voice: end of speech → proposal (templates)",
        format!("{:.0} ms (transcript {ahead:.0}, measured, ahead + {tp:.1})", ahead + tp),
    );
    s.add(
        "voice: end of speech → proposal (model)",
        format!(
            "{:.0} ms (transcript {ahead:.0} + model {mp:.0}; {:.0} ms without transcribing ahead)",
            ahead + mp,
            after + mp
        ),
    );
    s.add("voice: whisper.cpp alone, 30 s window vs trimmed", format!("{full_ms:.0} ms vs {trimmed_ms:.0} ms"));
    s.add("voice: a second hearing on doubt (whole window, round trip)", format!("{ag:.0} ms"));
    s.add("voice: weighing seven texts against the utterance (round trip)", format!("{wg:.0} ms"));
    Ok(())
}

/// `rounds` runs of `wav` fed at the microphone's pace: for each transcript, how long after
/// the end of speech it was ready. `ahead`: the worker transcribes ahead, and each transcript
/// must say so (a bench that measured the other path would be reporting nothing).
async fn paced(voice: &mut Voice, wav: &Path, rounds: usize, ahead: bool) -> Result<Vec<f64>> {
    let mut out = vec![];
    for _ in 0..rounds {
        for t in voice.transcribe_file_paced(wav, |_| {}).await.map_err(|e| anyhow!(e))? {
            if t.timings.ahead != ahead {
                bail!("a paced transcript was{} transcribed ahead: {:?}", if ahead { " not" } else { "" }, t.timings);
            }
            let after = t.timings.after_end_ms.ok_or_else(|| anyhow!("a paced transcript without its latency"))?;
            out.push(after as f64);
        }
    }
    if out.is_empty() {
        bail!("no speech found in the paced recording");
    }
    Ok(out)
}

/// What was heard and six ways it may have been meant: its last word replaced by names.
fn weighed_texts(heard: &str) -> Vec<String> {
    let words: Vec<&str> = heard.split_whitespace().collect();
    let head = words[..words.len().saturating_sub(1)].join(" ");
    let mut texts = vec![heard.to_string()];
    texts.extend(
        ["reports.", "records.", "receipts.", "report.txt.", "resorts.", "the reports folder."]
            .iter()
            .map(|name| format!("{head} {name}")),
    );
    texts
}
