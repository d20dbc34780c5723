//! What the voice worker's integration tests share: speech made with espeak-ng, a private
//! PulseAudio server whose null sink's monitor is the default microphone (a real-time virtual
//! microphone on a machine with no sound card), and the worker binary driven over its
//! JSON-lines protocol.
//!
//! How the virtual microphone works here: `pulseaudio` runs as a child of the test, as root,
//! with `--system=false`, its runtime files and HOME in a temp dir, and only a native-protocol
//! socket in that dir (`module-native-protocol-unix`), a null sink `vsink` and
//! `module-always-sink`. `pactl set-default-source vsink.monitor` makes the sink's monitor the
//! default source. The worker gets `PULSE_SERVER=unix:<socket>`; ALSA's `default` PCM then goes
//! through PulseAudio (libasound2-plugins' `99-pulse.conf` hook routes it there whenever a
//! server answers), which is what cpal's ALSA host opens. `paplay` into the sink plays in real
//! time, so the worker hears it as a microphone would.
//!
//! Everything the tests need (espeak-ng, sox, pulseaudio, pactl, paplay, the models) is checked
//! with a message saying how to get it: a missing piece fails the test, it does not skip it.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use smart_voice::protocol::{Event, EventLine, LoadVoice, Request, Transcript, decode_event, encode_request};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Live-audio tests run one at a time: two cores, and whisper competing with a real-time
/// stream would measure the machine, not the worker.
static LIVE: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn models_dir() -> PathBuf {
    match std::env::var_os("SMART_MODELS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").expect("HOME is not set")).join(".cache/smart/models"),
    }
}

/// A file or folder in the models folder, which must exist.
pub fn model(name: &str) -> String {
    let p = models_dir().join(name);
    assert!(
        p.exists(),
        "{} is missing: fetch the voice models with `smart models fetch whisper-tiny.en silero-vad vosk-ko` \
         (scripts/test.sh does), or point SMART_MODELS_DIR at a folder that has them",
        p.display()
    );
    p.display().to_string()
}

/// The vocabulary prompt the runtime gives whisper, for a folder holding these names.
pub fn prompt() -> String {
    let names: Vec<String> =
        ["Downloads", "Documents", "Pictures", "Music", "old.log", "notes.txt"].iter().map(|s| s.to_string()).collect();
    smart_runtime::model_choice::whisper_prompt(&names)
}

/// Load request for whisper tiny.en and Silero, with the runtime's vocabulary prompt and the
/// protocol's defaults for everything else (the endpoint, a 500 ms pre-roll, no wake word).
pub fn load_request() -> LoadVoice {
    serde_json::from_value(serde_json::json!({
        "whisper": model("ggml-tiny.en.bin"),
        "vad": model("ggml-silero-v6.2.0.bin"),
        "threads": 2,
        "prompt": prompt(),
    }))
    .unwrap()
}

pub fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("cannot run {cmd:?}: {e} (scripts/setup.sh installs espeak-ng, sox and pulseaudio)")
    });
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// espeak-ng says `text` in `voice` at `wpm` words a minute; sox makes it 16 kHz mono 16-bit
/// with `lead_s` of silence before and `tail_s` after. sox runs repeatable (`-R`): its dither is
/// otherwise random, and two tests making the same recipe at once kept different bytes under one
/// name — the Windows run, reading the kept parts, then looked for a concatenation nobody made.
pub fn speak(dir: &Path, name: &str, text: &str, voice: &str, wpm: u32, lead_s: f32, tail_s: f32) -> PathBuf {
    let key = format!("speak\n{text}\n{voice}\n{wpm}\n{lead_s}\n{tail_s}");
    rendered(dir, name, &key, |out| {
        let raw = dir.join(format!("{name}.raw.wav"));
        run(Command::new("espeak-ng").args(["-v", voice, "-s", &wpm.to_string(), "-w"]).arg(&raw).arg(text));
        run(Command::new("sox").arg("-R").arg(&raw).args(["-r", "16000", "-c", "1", "-b", "16"]).arg(out).args([
            "pad",
            &lead_s.to_string(),
            &tail_s.to_string(),
        ]));
    })
}

/// [`speak`] with the recording cut right after the last sound (espeak-ng's own ~430 ms of
/// trailing silence taken off): the file ends before any endpoint decides the speech ended.
pub fn speak_cut(dir: &Path, name: &str, text: &str, voice: &str, wpm: u32, lead_s: f32) -> PathBuf {
    let key = format!("speak_cut\n{text}\n{voice}\n{wpm}\n{lead_s}");
    rendered(dir, name, &key, |out| {
        let raw = dir.join(format!("{name}.raw.wav"));
        run(Command::new("espeak-ng").args(["-v", voice, "-s", &wpm.to_string(), "-w"]).arg(&raw).arg(text));
        run(Command::new("sox").arg("-R").arg(&raw).args(["-r", "16000", "-c", "1", "-b", "16"]).arg(out).args([
            "reverse",
            "silence",
            "1",
            "0.01",
            "0.5%",
            "reverse",
            "pad",
            &lead_s.to_string(),
            "0",
        ]));
    })
}

/// WAV files one after another.
pub fn concat(dir: &Path, name: &str, parts: &[&Path]) -> PathBuf {
    let mut key = String::from("concat");
    for part in parts {
        let bytes = std::fs::read(part).unwrap_or_else(|e| panic!("{}: {e}", part.display()));
        key.push_str(&format!("\n{:016x}", fnv1a(&bytes)));
    }
    rendered(dir, name, &key, |out| run(Command::new("sox").arg("-R").args(parts).arg(out)))
}

/// Where the speech these tests say is kept for a system that cannot make it: a Windows test
/// binary under Wine cannot start espeak-ng or sox (Linux programs), so `scripts/windows-test.sh`
/// first runs the same tests on Linux with this folder set, where every WAV made is also kept
/// under a name from what it says and how, and the Windows tests read them from it.
const SPEECH_DIR: &str = "SMART_TEST_SPEECH_DIR";

/// `dir/name.wav`, made by `render` — or, on Windows, copied from the speech folder, where the
/// Linux run of the same test left it under a name from `key` (everything that decides its
/// bytes). A missing file fails the test with what to run.
fn rendered(dir: &Path, name: &str, key: &str, render: impl FnOnce(&Path)) -> PathBuf {
    let out = dir.join(format!("{name}.wav"));
    let kept = format!("{name}-{:016x}.wav", fnv1a(key.as_bytes()));
    let folder = std::env::var_os(SPEECH_DIR).map(PathBuf::from);
    if cfg!(windows) {
        let from = folder.map(|f| f.join(&kept)).filter(|p| p.is_file()).unwrap_or_else(|| {
            panic!(
                "{kept} is not in {SPEECH_DIR}: a Windows test cannot run espeak-ng and sox, so \
                 scripts/windows-test.sh makes the speech on Linux first ({key:?})"
            )
        });
        std::fs::copy(&from, &out).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        return out;
    }
    render(&out);
    if let Some(folder) = folder {
        std::fs::create_dir_all(&folder).unwrap();
        // Written beside and renamed, so a Windows run never reads half a file; under a name of
        // its own, as two tests may say the same thing at once.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let part =
            folder.join(format!("{kept}.{}-{}.part", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)));
        std::fs::copy(&out, &part).unwrap();
        std::fs::rename(&part, folder.join(&kept)).unwrap();
    }
    out
}

/// FNV-1a, 64 bits: a stable name for a WAV's recipe (not a defence against anything).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// A private PulseAudio server with a null sink whose monitor is the default source. Killed
/// (it is this test's child) on drop.
pub struct VirtualMic {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub socket: PathBuf,
    child: Child,
}

impl VirtualMic {
    pub fn start() -> VirtualMic {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let runtime = dir.path().join("run");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&runtime).unwrap();
        let socket = dir.path().join("native");
        let child = Command::new("pulseaudio")
            .args(["-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--system=false"])
            .args(["--disallow-exit", "--log-target=stderr"])
            .arg("-L")
            .arg(format!("module-native-protocol-unix socket={} auth-anonymous=1", socket.display()))
            .args(["-L", "module-null-sink sink_name=vsink", "-L", "module-always-sink"])
            .env("HOME", &home)
            .env("PULSE_RUNTIME_PATH", &runtime)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env_remove("PULSE_SERVER")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start pulseaudio: {e} (scripts/setup.sh installs pulseaudio)"));
        let mut mic = VirtualMic { dir, home, socket, child };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = mic.child.try_wait().unwrap() {
                panic!("pulseaudio exited at once ({status}); run it by hand with -vvv to see why");
            }
            let ok = mic.socket.exists() && mic.pactl(&["info"]).status.success();
            if ok {
                break;
            }
            assert!(Instant::now() < deadline, "pulseaudio did not open {} within 15 s", mic.socket.display());
            std::thread::sleep(Duration::from_millis(50));
        }
        let set = mic.pactl(&["set-default-source", "vsink.monitor"]);
        assert!(set.status.success(), "pactl set-default-source: {}", String::from_utf8_lossy(&set.stderr));
        mic
    }

    pub fn server(&self) -> String {
        format!("unix:{}", self.socket.display())
    }

    fn pactl(&self, args: &[&str]) -> std::process::Output {
        Command::new("pactl")
            .args(args)
            .env("PULSE_SERVER", self.server())
            .env("HOME", &self.home)
            .output()
            .unwrap_or_else(|e| panic!("cannot run pactl: {e} (scripts/setup.sh installs pulseaudio-utils)"))
    }

    /// Starts playing `wav` into the sink, in real time.
    pub fn play(&self, wav: &Path) -> Child {
        Command::new("paplay")
            .arg("--device=vsink")
            .arg(wav)
            .env("PULSE_SERVER", self.server())
            .env("HOME", &self.home)
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run paplay: {e} (scripts/setup.sh installs pulseaudio-utils)"))
    }

    /// What the worker needs to hear this microphone.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![("PULSE_SERVER".into(), self.server()), ("HOME".into(), self.home.display().to_string())]
    }
}

impl Drop for VirtualMic {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for a player to finish and checks it succeeded.
pub fn finish(mut player: Child) {
    let status = player.wait().unwrap();
    assert!(status.success(), "paplay failed: {status}");
}

/// The worker binary, spoken to in its line protocol. Events that arrive while a request waits
/// for its answer are kept, in order, for [`Worker::next_event`].
/// A worker on this machine as it is — no sound card — with no sound server either: PULSE_SERVER
/// names a socket that does not exist and HOME is a fresh folder, so nothing routes ALSA anywhere.
pub fn worker_without_sound(dir: &Path) -> Worker {
    assert!(
        !Path::new("/dev/snd").exists(),
        "this machine has a sound card (/dev/snd): the test is about one that has none"
    );
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    Worker::spawn(&[
        ("HOME".to_string(), home.display().to_string()),
        ("PULSE_SERVER".to_string(), format!("unix:{}", dir.join("no-such-socket").display())),
    ])
}

pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Result<EventLine, String>>,
    pending: VecDeque<Event>,
    next_id: u64,
    started: Instant,
}

impl Worker {
    /// Starts the worker with only `env` (plus PATH) in its environment.
    pub fn spawn(env: &[(String, String)]) -> Worker {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_smart-voice-worker"));
        cmd.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        cmd.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start smart-voice-worker");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(decode_event(&line).map_err(|e| format!("{e}: {line}"))).is_err() {
                    break;
                }
            }
        });
        Worker { child, stdin, rx, pending: VecDeque::new(), next_id: 1, started: Instant::now() }
    }

    fn recv(&mut self, deadline: Instant, what: &str) -> EventLine {
        match self.rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => panic!("the worker broke the protocol while waiting for {what}: {e}"),
            Err(RecvTimeoutError::Timeout) => panic!("no {what} from the worker in time"),
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the worker exited while waiting for {what}: {:?}", self.child.try_wait())
            }
        }
    }

    /// Sends a request and returns its answer.
    pub fn request(&mut self, request: Request, timeout: Duration) -> Event {
        let id = self.next_id;
        self.next_id += 1;
        let what = format!("{request:?}");
        let line = encode_request(id, request).unwrap();
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).expect("the worker's stdin is closed");
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.recv(deadline, &format!("the answer to {what}"));
            if line.id == id {
                return line.event;
            }
            assert_eq!(line.id, 0, "an answer to a request never made: {line:?}");
            self.pending.push_back(line.event);
        }
    }

    /// `transcribe_file`: every event it produces (they carry its id), through `done`.
    pub fn transcribe_file(&mut self, path: &Path) -> Vec<Event> {
        self.transcribe(path, false, false)
    }

    /// `transcribe_file` at the microphone's pace (it takes as long as the recording).
    pub fn transcribe_file_paced(&mut self, path: &Path) -> Vec<Event> {
        self.transcribe(path, false, true)
    }

    /// `transcribe_file` in wake mode: only speech addressed to SMART is transcribed.
    pub fn transcribe_file_waking(&mut self, path: &Path) -> Vec<Event> {
        self.transcribe(path, true, false)
    }

    fn transcribe(&mut self, path: &Path, wake: bool, paced: bool) -> Vec<Event> {
        let id = self.next_id;
        self.next_id += 1;
        let line =
            encode_request(id, Request::TranscribeFile { path: path.display().to_string(), wake, paced }).unwrap();
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).expect("the worker's stdin is closed");
        let deadline = Instant::now() + Duration::from_secs(180);
        let mut events = vec![];
        loop {
            let line = self.recv(deadline, "the events of transcribe_file");
            if line.id != id {
                self.pending.push_back(line.event);
                continue;
            }
            let end = matches!(line.event, Event::Done { .. } | Event::Error(_));
            events.push(line.event);
            if end {
                return events;
            }
        }
    }

    /// Sends a request that must be answered `ok`.
    pub fn ok(&mut self, request: Request) {
        let what = format!("{request:?}");
        match self.request(request, Duration::from_secs(30)) {
            Event::Ok => {}
            other => panic!("{what} was answered {other:?}"),
        }
    }

    /// The next event the audio produced, if one arrives before `timeout`.
    pub fn next_event(&mut self, timeout: Duration) -> Option<Event> {
        if let Some(e) = self.pending.pop_front() {
            return Some(e);
        }
        match self.rx.recv_timeout(timeout) {
            Ok(Ok(line)) => {
                assert_eq!(line.id, 0, "an answer to no request: {line:?}");
                Some(line.event)
            }
            Ok(Err(e)) => panic!("the worker broke the protocol: {e}"),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("the worker exited: {:?}", self.child.try_wait()),
        }
    }

    /// Events until one matches `pred` (returned last), or a panic naming `what` after
    /// `timeout`.
    pub fn until(&mut self, what: &str, timeout: Duration, mut pred: impl FnMut(&Event) -> bool) -> Vec<Event> {
        let deadline = Instant::now() + timeout;
        let mut seen = vec![];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(e) = self.next_event(left) else {
                let kinds: Vec<String> = seen.iter().filter(|e| !is_level(e)).map(|e| format!("{e:?}")).collect();
                panic!("no {what} within {timeout:?}; other events meanwhile: {kinds:?}");
            };
            let done = pred(&e);
            seen.push(e);
            if done {
                return seen;
            }
        }
    }

    /// Loads the models; the `loaded` answer.
    pub fn load(&mut self, load: LoadVoice) -> smart_voice::protocol::Loaded {
        match self.request(Request::Load(Box::new(load)), Duration::from_secs(120)) {
            Event::Loaded(l) => l,
            other => panic!("load was answered {other:?}"),
        }
    }

    /// The worker's CPU time so far (user + system), from /proc.
    pub fn cpu_time(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // Fields after the command name, which is in parentheses and may hold spaces.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
        Duration::from_millis(ticks * 10)
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", encode_request(u64::MAX, Request::Shutdown).unwrap_or_default());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn is_level(e: &Event) -> bool {
    matches!(e, Event::Level { .. })
}

pub fn level(e: &Event) -> Option<(u64, f32)> {
    match e {
        Event::Level { at_ms, rms_dbfs } => Some((*at_ms, *rms_dbfs)),
        _ => None,
    }
}

pub fn transcripts(events: &[Event]) -> Vec<&Transcript> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Transcript(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// A level this loud is speech (espeak-ng through the null sink reads -15 to -35 dBFS); the
/// monitor of an idle null sink reads digital silence (-96 to -120).
pub const SPEECH_DBFS: f32 = -45.0;
pub const SILENCE_DBFS: f32 = -70.0;

/// The first word of a text as WER compares words.
pub fn first_word(text: &str) -> Option<String> {
    smart_voice::wer::normalise(text).into_iter().next()
}
