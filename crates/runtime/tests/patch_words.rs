//! A patch's words to find are fitted to the file's own text (`understand::patch_words`), and
//! only a file inside the allowed folders is read for it; a heard patch's misheard words to find
//! are put right against the file's words, and its new words take their case
//! (`smart_voice::heard_edit`).
//!
//! Real engine, real ledger, real files; the sentences are ones the phrase templates answer,
//! so no model is needed (the model factory fails if asked).

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{engine, transcript, without_model};
use smart_runtime::{Assistant, SayReport};
use std::path::PathBuf;

struct Setup {
    tmp: tempfile::TempDir,
    root: PathBuf,
    a: Assistant,
}

const LIST: &str = "milk\nTuesday: eggs, flour\nthe walnut table\n";

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("shopping.txt"), LIST).unwrap();
    std::fs::write(tmp.path().join("outside.txt"), LIST).unwrap();
    let root = dunce::canonicalize(root).unwrap();
    let a = without_model(engine(&tmp.path().join("data"), &root, None));
    Setup { tmp, root, a }
}

fn say(s: &mut Setup, text: &str) -> SayReport {
    common::say(&mut s.a, &s.root, text).unwrap()
}

fn hear(s: &mut Setup, text: &str) -> SayReport {
    common::hear(&mut s.a, &s.root, &transcript(text, 0), None)
}

fn replace(r: &SayReport) -> &str {
    r.steps.first().unwrap_or_else(|| panic!("no call: {r:?}")).proposal.args["replace"].as_str().unwrap()
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

#[test]
fn a_heard_edit_is_put_right_against_the_files_words_and_case() {
    let mut s = setup();
    // Heard so by whisper tiny.en from espeak-ng (the spoken eval): "swap walnut for marble".
    let heard = hear(&mut s, "Replace wallet with Marble in shopping.txt.");
    assert_eq!((find(&heard), replace(&heard)), ("walnut", "marble"));
    // The new words take the case of the old as the file has them.
    let heard = hear(&mut s, "Replace tuesday with friday in shopping.txt.");
    assert_eq!((find(&heard), replace(&heard)), ("Tuesday", "Friday"));
    // Typed, the words are what the person meant.
    let typed = say(&mut s, "replace wallet with Marble in shopping.txt");
    assert_eq!((find(&typed), replace(&typed)), ("wallet", "Marble"));
}
