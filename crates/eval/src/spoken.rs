//! The spoken eval: each case said aloud by espeak-ng — two voices at two speeds, and one
//! recording with noise mixed in by sox — and heard through the voice worker exactly as `smart
//! listen --wav` hears a file (Silero VAD, whisper with the folder's names in its prompt), then
//! handed to the assistant like any transcript.

use anyhow::{Context, Result, anyhow, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    pub voice: String,
    pub wpm: u32,
    /// sox noise colour and amplitude, mixed under the recording.
    pub noise: Option<(String, f32)>,
}

/// Two voices at two speeds, and a noisy one.
pub fn default_variants() -> Vec<Variant> {
    let v = |voice: &str, wpm: u32, noise: Option<(&str, f32)>| Variant {
        name: format!("{voice} {wpm} wpm{}", noise.map(|(c, a)| format!(" + {c} {a}")).unwrap_or_default()),
        voice: voice.into(),
        wpm,
        noise: noise.map(|(c, a)| (c.to_string(), a)),
    };
    vec![
        v("en-us", 140, None),
        v("en-us", 185, None),
        v("en-gb-x-rp", 140, None),
        v("en-gb-x-rp", 185, None),
        v("en-us", 160, Some(("pinknoise", 0.03))),
    ]
}

fn run(cmd: &mut Command) -> Result<String> {
    let out =
        cmd.output().with_context(|| format!("cannot run {cmd:?} (scripts/setup.sh installs espeak-ng and sox)"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `text` said by `v`, as 16 kHz mono with a little silence before and after.
pub fn synthesize(dir: &Path, name: &str, text: &str, v: &Variant) -> Result<PathBuf> {
    let raw = dir.join(format!("{name}.raw.wav"));
    let speech = dir.join(format!("{name}.speech.wav"));
    run(Command::new("espeak-ng").args(["-v", &v.voice, "-s", &v.wpm.to_string(), "-w"]).arg(&raw).arg(text))?;
    run(Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16"])
        .arg(&speech)
        .args(["pad", "0.3", "1.2"]))?;
    let _ = std::fs::remove_file(&raw);
    let Some((colour, amplitude)) = &v.noise else { return Ok(speech) };
    let seconds = run(Command::new("soxi").arg("-D").arg(&speech))?;
    let noise = dir.join(format!("{name}.noise.wav"));
    run(Command::new("sox").args(["-R", "-n", "-r", "16000", "-c", "1", "-b", "16"]).arg(&noise).args([
        "synth",
        seconds.trim(),
        colour,
        "vol",
        &amplitude.to_string(),
    ]))?;
    let mixed = dir.join(format!("{name}.wav"));
    run(Command::new("sox").args(["-R", "-m"]).arg(&speech).arg(&noise).arg(&mixed))?;
    let _ = std::fs::remove_file(&noise);
    let _ = std::fs::remove_file(&speech);
    Ok(mixed)
}

/// Whether espeak-ng and sox are here (the spoken eval needs both).
pub fn available() -> Result<()> {
    for tool in ["espeak-ng", "sox", "soxi"] {
        if Command::new(tool).arg("--version").output().is_err() {
            return Err(anyhow!("{tool} is not installed (scripts/setup.sh installs it)"));
        }
    }
    Ok(())
}
