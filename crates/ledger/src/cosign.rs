//! The head signed on a second thread while SQLite inserts the events it vouches for.
//!
//! Every append signs its new head with the device key, inside the transaction that writes the
//! events, so the head and the events land together or not at all. The signature (Ed25519) is
//! the dearest thing an append does besides SQLite's own work: about 22 µs on the two-core box
//! the benchmarks run on, against about 140 µs for a bare, durable one-row insert. But what is
//! signed — the head's sequence and hash — is known as soon as the batch is hashed, before
//! SQLite inserts anything, and the insert takes about as long again. So the ledger keeps a
//! thread that signs while the caller's thread inserts; the head row waits for the signature
//! only at the end.
//!
//! The thread is a help, never something an append depends on:
//! - a signature the thread has not begun when the inserts are done is taken back and made on
//!   the caller's thread (a thread woken from sleep can take longer to run than the signature
//!   does), so an append waits for the thread only once it is signing;
//! - a thread that cannot be started, a signer that cannot be handed to one
//!   ([`crate::HeadSigner::detached`] is `None`), or a thread gone, all mean signing inline;
//! - Ed25519 signatures are deterministic: the bytes written are the same either way (a test
//!   holds the two to each other).
//!
//! After each signature the thread stays awake for [`AWAKE`] in case another follows (a burst of
//! appends, a turn's decisions): a job then starts at once instead of after a wake-up. Then it
//! sleeps until the next append, costing nothing. (So an append costs up to half a millisecond
//! of the second core's time spinning, against about 22 µs saved on the caller's: worth it for
//! a burst, and a person's decisions come seconds apart.)

use crate::store::HeadSigner;
use std::sync::mpsc::{Receiver, Sender, SyncSender, TryRecvError, channel, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long the signing thread keeps looking for the next job before it sleeps.
pub const AWAKE: Duration = Duration::from_micros(500);

/// How long an append spins for a signature the thread has begun, before it sleeps on it. A
/// signature takes tens of microseconds; sleeping costs a wake-up of about as much. A thread
/// descheduled mid-signature (a busy machine) is slept on, not spun for.
const SPIN: Duration = Duration::from_micros(200);

/// A signature to make: the signer handed over, the message, and where the answer goes.
struct Job {
    /// Taken by whoever makes the signature: the thread, or the append taking it back.
    sign: Mutex<Option<Detached>>,
    msg: Vec<u8>,
    reply: SyncSender<String>,
}

/// A signer a thread may keep: see [`HeadSigner::detached`].
pub type Detached = Box<dyn FnOnce(&[u8]) -> String + Send>;

/// The ledger's signing thread, started on the first append that can use it.
#[derive(Default)]
pub(crate) struct Cosigner {
    jobs: Option<Sender<Arc<Job>>>,
    /// The thread could not be started: every append signs inline.
    unavailable: bool,
}

/// A head signature under way; [`Pending::finish`] gives it.
pub(crate) struct Pending {
    msg: Vec<u8>,
    handed: Option<(Arc<Job>, Receiver<String>)>,
}

impl Cosigner {
    /// Starts signing `msg` on the thread where `signer` can be handed to it; else it is signed
    /// when the result is asked for.
    pub(crate) fn start(&mut self, signer: &dyn HeadSigner, msg: Vec<u8>) -> Pending {
        let Some(detached) = signer.detached() else { return Pending { msg, handed: None } };
        let Some(jobs) = self.thread() else { return Pending { msg, handed: None } };
        let (reply, answer) = sync_channel(1);
        let job = Arc::new(Job { sign: Mutex::new(Some(detached)), msg: msg.clone(), reply });
        if jobs.send(Arc::clone(&job)).is_err() {
            // The thread is gone: from here on, inline.
            self.jobs = None;
            self.unavailable = true;
            return Pending { msg, handed: None };
        }
        Pending { msg, handed: Some((job, answer)) }
    }

    fn thread(&mut self) -> Option<&Sender<Arc<Job>>> {
        if self.jobs.is_none() && !self.unavailable {
            let (jobs, rx) = channel::<Arc<Job>>();
            match std::thread::Builder::new().name("ledger-cosign".into()).spawn(move || serve(&rx)) {
                Ok(_) => self.jobs = Some(jobs),
                Err(_) => self.unavailable = true,
            }
        }
        self.jobs.as_ref()
    }
}

/// The signing thread: a job at a time, awake for [`AWAKE`] after each, until the ledger goes.
fn serve(rx: &Receiver<Arc<Job>>) {
    let mut awake_until = Instant::now() + AWAKE;
    loop {
        let job = match rx.try_recv() {
            Ok(job) => job,
            Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) if Instant::now() < awake_until => {
                std::hint::spin_loop();
                continue;
            }
            Err(TryRecvError::Empty) => match rx.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
        };
        let taken = job.sign.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(sign) = taken {
            // The append may have given up on it (its transaction failed): nobody to tell.
            let _ = job.reply.send(sign(&job.msg));
        }
        awake_until = Instant::now() + AWAKE;
    }
}

impl Pending {
    /// The signature: the thread's, or, where the thread has not begun it (or cannot give it),
    /// made here with `signer`.
    pub(crate) fn finish(self, signer: &dyn HeadSigner) -> String {
        let Some((job, answer)) = self.handed else { return signer.sign_hex(&self.msg) };
        let taken_back = job.sign.lock().unwrap_or_else(PoisonError::into_inner).take().is_some();
        if taken_back {
            return signer.sign_hex(&self.msg);
        }
        // The thread holds the job until it answers: once it lets go unanswered, the answer
        // channel closes and this stops waiting.
        drop(job);
        let spin_until = Instant::now() + SPIN;
        loop {
            match answer.try_recv() {
                Ok(signature) => return signature,
                Err(TryRecvError::Disconnected) => return signer.sign_hex(&self.msg),
                Err(TryRecvError::Empty) if Instant::now() < spin_until => std::hint::spin_loop(),
                Err(TryRecvError::Empty) => {
                    return answer.recv().unwrap_or_else(|_| signer.sign_hex(&self.msg));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smart_kernel::Hash;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Signs with a fixed Ed25519 key; counts where each signature was made.
    struct Key {
        key: ed25519_dalek::SigningKey,
        inline: AtomicUsize,
        handed: Arc<AtomicUsize>,
        hand_over: bool,
    }

    impl Key {
        fn new(hand_over: bool) -> Key {
            Key {
                key: ed25519_dalek::SigningKey::from_bytes(&[7; 32]),
                inline: AtomicUsize::new(0),
                handed: Arc::new(AtomicUsize::new(0)),
                hand_over,
            }
        }
    }

    impl HeadSigner for Key {
        fn sign_hex(&self, msg: &[u8]) -> String {
            use ed25519_dalek::Signer;
            self.inline.fetch_add(1, Ordering::SeqCst);
            hex::encode(self.key.sign(msg).to_bytes())
        }
        fn seal_hex(&self, hash: &Hash) -> String {
            hash.to_hex()
        }
        fn detached(&self) -> Option<Detached> {
            use ed25519_dalek::Signer;
            let (key, handed) = (self.key.clone(), Arc::clone(&self.handed));
            self.hand_over.then(|| -> Detached {
                Box::new(move |msg: &[u8]| {
                    handed.fetch_add(1, Ordering::SeqCst);
                    hex::encode(key.sign(msg).to_bytes())
                })
            })
        }
    }

    #[test]
    fn a_signature_made_on_the_thread_is_the_one_made_inline() {
        let (handing, inline) = (Key::new(true), Key::new(false));
        let mut cosigner = Cosigner::default();
        for i in 0..200u32 {
            let msg = format!("head {i}").into_bytes();
            let pending = cosigner.start(&handing, msg.clone());
            // What an append does meanwhile: the inserts.
            let busy = Instant::now();
            while busy.elapsed() < Duration::from_micros(200) {
                std::hint::spin_loop();
            }
            let from_thread = pending.finish(&handing);
            assert_eq!(from_thread, inline.sign_hex(&msg));
            // Back to back and after a pause, so both an awake and a sleeping thread are asked.
            if i % 50 == 0 {
                std::thread::sleep(AWAKE * 3);
            }
        }
        let (made_there, made_here) = (handing.handed.load(Ordering::SeqCst), handing.inline.load(Ordering::SeqCst));
        assert_eq!(made_there + made_here, 200, "each signature made exactly once");
        assert!(made_there > 0, "the thread signed none of 200 heads");
    }

    #[test]
    fn a_signer_that_cannot_be_handed_over_signs_inline() {
        let key = Key::new(false);
        let mut cosigner = Cosigner::default();
        let sig = cosigner.start(&key, b"head".to_vec()).finish(&key);
        assert_eq!(sig, Key::new(false).sign_hex(b"head"));
        assert_eq!(key.inline.load(Ordering::SeqCst), 1);
        assert!(cosigner.jobs.is_none(), "no thread is started for a signer that stays here");
    }

    #[test]
    fn a_signature_not_begun_is_taken_back() {
        let key = Key::new(true);
        let (reply, answer) = sync_channel(1);
        // A job no thread will ever take: finishing it must not wait for one.
        let job = Arc::new(Job { sign: Mutex::new(key.detached()), msg: b"head".to_vec(), reply });
        let pending = Pending { msg: b"head".to_vec(), handed: Some((job, answer)) };
        assert_eq!(pending.finish(&key), Key::new(false).sign_hex(b"head"));
        assert_eq!(key.inline.load(Ordering::SeqCst), 1);
        assert_eq!(key.handed.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_signature_taken_but_never_given_is_made_here() {
        let key = Key::new(true);
        let (reply, answer) = sync_channel(1);
        // The thread took it (nothing left to take back) and went away without answering.
        let job = Arc::new(Job { sign: Mutex::new(None), msg: b"head".to_vec(), reply });
        let pending = Pending { msg: b"head".to_vec(), handed: Some((Arc::clone(&job), answer)) };
        drop(job);
        assert_eq!(pending.finish(&key), Key::new(false).sign_hex(b"head"));
    }
}
