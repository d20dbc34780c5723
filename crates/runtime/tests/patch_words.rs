//! A patch's words to find are fitted to the file's own text (`understand::patch_words`), and
//! only a file inside the allowed folders is read for it.
//!
//! Real engine, real ledger, real files; the sentences are ones the phrase templates answer,
//! so no model is needed (the model factory fails if asked).

#![allow(clippy::unwrap_used, clippy::panic)]

use smart_runtime::assistant::AssistantError;
use smart_runtime::{Assistant, Bus, Engine, FixedClock, InitOptions, SayOptions, SayReport};
use smart_signals::KeyStoreKind;
use std::path::PathBuf;

struct Setup {
    tmp: tempfile::TempDir,
    root: PathBuf,
    a: Assistant,
}

const LIST: &str = "milk\nTuesday: eggs, flour\n";

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("shopping.txt"), LIST).unwrap();
    std::fs::write(tmp.path().join("outside.txt"), LIST).unwrap();
    let root = dunce::canonicalize(root).unwrap();
    let opts = InitOptions { roots: vec![root.clone()], policy: None, key_store: Some(KeyStoreKind::File) };
    let (engine, _) = Engine::init(&tmp.path().join("data"), opts, Box::new(FixedClock(1_800_000_000_000))).unwrap();
    let no_model = Box::new(|| Err(AssistantError::NothingToPerceive));
    Setup { tmp, root, a: Assistant::new(engine, Bus::default(), no_model) }
}

fn say(s: &mut Setup, text: &str) -> SayReport {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let o = SayOptions { propose_only: true, no_templates: false, base: Some(s.root.clone()) };
    rt.block_on(s.a.say(text, &o)).unwrap()
}

fn find(r: &SayReport) -> &str {
    let step = r.steps.first().unwrap_or_else(|| panic!("no call: {r:?}"));
    assert_eq!(step.proposal.tool, "propose.patch");
    step.proposal.args["find"].as_str().unwrap()
}

#[test]
fn the_words_to_find_are_the_ones_the_file_holds() {
    let mut s = setup();
    // Said with more than the edit, and in another case than the file's.
    assert_eq!(find(&say(&mut s, "replace the day tuesday with friday in shopping.txt")), "Tuesday");
    assert_eq!(find(&say(&mut s, "replace Milk with oat milk in shopping.txt")), "milk");
    // Words the file does not hold stay as said: the patch tool names them when it refuses.
    assert_eq!(find(&say(&mut s, "replace granite with cedar in shopping.txt")), "granite");
}

#[test]
fn a_file_outside_the_allowed_folders_is_not_read() {
    let mut s = setup();
    let outside = s.tmp.path().join("outside.txt");
    let text = format!("replace the day tuesday with friday in {}", outside.display());
    assert_eq!(find(&say(&mut s, &text)), "the day tuesday");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, s.root.join("link.txt")).unwrap();
        assert_eq!(find(&say(&mut s, "replace the day tuesday with friday in link.txt")), "the day tuesday");
    }
}
