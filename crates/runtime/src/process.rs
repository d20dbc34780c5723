//! A worker child process: spawned with piped stdio, its last words on stderr kept.
//!
//! Both model workers (the proposer and the voice worker) are untrusted native code behind a
//! line protocol, so both need the same plumbing: find the binary, start it with its pipes,
//! keep the tail of its stderr (which explains a crash better than an exit code), tell how it
//! died, and kill it without waiting forever. The protocols differ and live with each worker.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub(crate) struct ChildProcess {
    pub child: Child,
    stdin: ChildStdin,
    pub stdout: Lines<BufReader<ChildStdout>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// The worker binaries the runtime starts, each looked for beside the program that starts it:
/// whatever builds the app or the CLI must build these too (`scripts/run.sh`; a test holds it
/// to this list).
pub const WORKERS: [&str; 2] = [crate::worker::PROPOSER_WORKER, crate::voice::VOICE_WORKER];

/// A worker binary: the path in `env_var` when set, else `name` beside this program (or one
/// level up, where test binaries find the workspace's binaries). The error says how to get it.
pub fn locate(env_var: &str, name: &str) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(env_var).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let mut candidates = vec![];
    if let Some(dir) = exe.parent() {
        candidates.push(dir.join(&file));
        if let Some(up) = dir.parent() {
            candidates.push(up.join(&file));
        }
    }
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        format!(
            "it is not installed beside {} (build it with `cargo build -p {name}`, or set {env_var})",
            exe.display()
        )
    })
}

/// Starts a worker without a window of its own. The workers are console programs, and Windows
/// opens a console window for one started by a program that has none (the app) unless told
/// not to; elsewhere this is a plain spawn.
pub fn spawn_worker_hidden(cmd: &mut Command) -> std::io::Result<Child> {
    #[cfg(windows)]
    {
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        cmd.creation_flags(CREATE_NO_WINDOW);
    }
    cmd.spawn()
}

impl ChildProcess {
    pub fn spawn(program: &Path, args: &[String]) -> Result<ChildProcess, String> {
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        let mut child = spawn_worker_hidden(&mut cmd).map_err(|e| e.to_string())?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("its pipes could not be opened".into());
        };
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(mut t) = tail.lock() {
                    if t.len() == 8 {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        Ok(ChildProcess { child, stdin, stdout: BufReader::new(stdout).lines(), stderr_tail })
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Writes one line; `false` when the process no longer reads.
    pub async fn write_line(&mut self, line: &str) -> bool {
        self.stdin.write_all(format!("{line}\n").as_bytes()).await.is_ok() && self.stdin.flush().await.is_ok()
    }

    /// Why the process is gone, as far as can be told: " (exit status): last stderr lines".
    pub async fn death_detail(&mut self) -> String {
        let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
        // Give the stderr reader a moment to collect the last words.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let tail =
            self.stderr_tail.lock().map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | ")).unwrap_or_default();
        let mut detail = match status {
            Ok(Ok(s)) => format!(" ({s})"),
            _ => String::new(),
        };
        if !tail.is_empty() {
            detail.push_str(&format!(": {tail}"));
        }
        detail
    }

    pub async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
    }
}
