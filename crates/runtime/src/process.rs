//! A worker child process: spawned with piped stdio, its last words on stderr kept.
//!
//! Both model workers (the proposer and the voice worker) are untrusted native code behind a
//! line protocol, so both need the same plumbing: find the binary, start it with its pipes,
//! keep the tail of its stderr (which explains a crash better than an exit code), tell how it
//! died, and kill it without waiting forever. The protocols differ and live with each worker.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;
use tokio::sync::{mpsc as async_mpsc, oneshot};

/// A running worker. Its pipes are served by plain threads, not by the async runtime: on
/// Windows tokio reads and writes a child's pipes on its blocking pool, where a read waits
/// until the child writes or dies, and a runtime dropped while a worker lived then waited for
/// that read forever (found under Wine: a test that dropped its runtime before its supervisor
/// never ended). Threads of our own end with the pipe and hold nothing up.
pub(crate) struct ChildProcess {
    /// `None` only in `Drop`, which hands it to a thread that reaps it.
    child: Option<Child>,
    /// Lines to write, each answered with whether it was written.
    stdin: mpsc::Sender<(String, oneshot::Sender<bool>)>,
    stdout: async_mpsc::Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// How many of the worker's last stderr lines are kept to explain its death.
const STDERR_TAIL: usize = 8;

/// How many stdout lines wait to be read before the reader stops reading: a worker that floods
/// its stdout is held back by its pipe, as it was when the runtime read the pipe itself, and
/// does not fill memory.
const STDOUT_WAITING: usize = 64;

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
        use std::os::windows::process::CommandExt;
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        cmd.creation_flags(CREATE_NO_WINDOW);
    }
    cmd.spawn()
}

/// Each line `from` gives, without its line ending and read as UTF-8 with bad bytes replaced
/// (a worker that prints garbage is told by the protocol's decoder, not by a dead pipe), until
/// the pipe ends.
fn each_line(from: impl Read, mut line: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(from);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                    buf.pop();
                }
                if !line(String::from_utf8_lossy(&buf).into_owned()) {
                    return;
                }
            }
        }
    }
}

impl ChildProcess {
    pub fn spawn(program: &Path, args: &[String]) -> Result<ChildProcess, String> {
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = spawn_worker_hidden(&mut cmd).map_err(|e| e.to_string())?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("its pipes could not be opened".into());
        };
        let (to_stdin, lines_in) = mpsc::channel::<(String, oneshot::Sender<bool>)>();
        let (lines_out, from_stdout) = async_mpsc::channel(STDOUT_WAITING);
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        let threads = [
            std::thread::Builder::new().name("worker-stdin".into()).spawn(move || {
                // Ends when the ChildProcess is dropped; stdin closes with it, which a worker reads
                // as "no more requests".
                for (line, written) in lines_in {
                    let ok = stdin.write_all(line.as_bytes()).and_then(|()| stdin.flush()).is_ok();
                    let _ = written.send(ok);
                }
            }),
            std::thread::Builder::new()
                .name("worker-stdout".into())
                .spawn(move || each_line(stdout, |line| lines_out.blocking_send(line).is_ok())),
            std::thread::Builder::new().name("worker-stderr".into()).spawn(move || {
                each_line(stderr, |line| {
                    if let Ok(mut t) = tail.lock() {
                        if t.len() == STDERR_TAIL {
                            t.pop_front();
                        }
                        t.push_back(line);
                    }
                    true
                })
            }),
        ];
        if let Some(Err(e)) = threads.into_iter().find(Result::is_err) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("cannot start a thread for its pipes: {e}"));
        }
        Ok(ChildProcess { child: Some(child), stdin: to_stdin, stdout: from_stdout, stderr_tail })
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// How it ended, once it has.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        self.child.as_mut().and_then(|c| c.try_wait().ok().flatten())
    }

    pub fn has_exited(&mut self) -> bool {
        self.exit_status().is_some()
    }

    /// Writes one line; `false` when the process no longer reads.
    pub async fn write_line(&mut self, line: &str) -> bool {
        let (written, answer) = oneshot::channel();
        if self.stdin.send((format!("{line}\n"), written)).is_err() {
            return false;
        }
        answer.await.unwrap_or(false)
    }

    /// The next line it printed on stdout; `None` once stdout is closed (it died, or closed it).
    pub async fn next_line(&mut self) -> Option<String> {
        self.stdout.recv().await
    }

    /// Waits up to `limit` for it to end (a short poll: the exit needs no thread of its own).
    async fn wait_for_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let step = Duration::from_millis(5);
        let mut waited = Duration::ZERO;
        loop {
            if let Some(status) = self.exit_status() {
                return Some(status);
            }
            if waited >= limit {
                return None;
            }
            tokio::time::sleep(step).await;
            waited += step;
        }
    }

    /// Why the process is gone, as far as can be told: " (exit status): last stderr lines".
    pub async fn death_detail(&mut self) -> String {
        let status = self.wait_for_exit(Duration::from_millis(500)).await;
        // Give the stderr reader a moment to collect the last words.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let tail =
            self.stderr_tail.lock().map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | ")).unwrap_or_default();
        let mut detail = match status {
            Some(s) => format!(" ({s})"),
            None => String::new(),
        };
        if !tail.is_empty() {
            detail.push_str(&format!(": {tail}"));
        }
        detail
    }

    pub async fn kill(mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
        }
        let _ = self.wait_for_exit(Duration::from_secs(2)).await;
    }
}

impl Drop for ChildProcess {
    /// A worker never outlives the code that started it: killed, and reaped on a thread of its
    /// own so that dropping never waits.
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = child.kill();
        let _ = std::thread::Builder::new().name("worker-reaper".into()).spawn(move || child.wait());
    }
}
