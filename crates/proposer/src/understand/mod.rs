//! Understanding: from what a person said to one proposed call, a question, or no call.
//!
//! This is the step a person feels first, and the one a small model is worst at when it is
//! simply asked to write a call. So the work is split by what each part is good at:
//!
//! 1. [`reading`] — the words as meant: fillers gone, "notes dot t x t" joined to `notes.txt`,
//!    a slipped letter in a word the rules lean on put right ([`misspelt`]).
//! 2. [`mentions`] — which words name files and folders, chosen from the closed [`vocab`]ulary
//!    of what exists under the allowed folders (a path is picked, never written); a name put
//!    right in the same breath ("Pictures no wait Letters") is read as [`corrected`].
//! 3. [`rank`] — which tool, by scoring every visible tool (and "no call") under the model in
//!    one batch over a cached prompt, instead of sampling one.
//!    [`cues`] then tilts that ranking towards the tools whose own words the person used
//!    ("remember", "duplicate"): evidence beside the model's, never a decision.
//! 4. [`args`] — the chosen tool's arguments from the mentions and the sentence, by a recipe
//!    per tool; the newest plan, patch, list or batch for the tools that apply or purge. A
//!    patch's words to find are then fitted to the file's own text ([`patch_words`]).
//! 5. [`decide`] — a call when the reading is clear, a question when it reads two ways or
//!    something is missing, a plain reply when nothing was prepared to apply; [`beyond`] a
//!    plain reply when the sentence asks for something no tool does (mail, alarms, music),
//!    and [`retracted`] one when the person took the request back ("… no wait, forget it");
//!    [`statement`] says when a sentence tells instead of asks ("my jeans need a patch on the
//!    knee"): no call; [`assent`] applies what was just prepared when the person only says go
//!    ahead ("bet", "alright go").
//!
//! Everything here is pure — the model's scores come in as numbers — so every rule is tested
//! without a model, and the runtime only gathers the facts (the folder tree, the ledger's
//! newest artifacts) and the scores.

pub mod args;
pub mod assent;
pub mod beyond;
pub mod corrected;
pub mod cues;
pub mod decide;
pub mod mentions;
pub mod misspelt;
pub mod patch_words;
pub mod rank;
pub mod reading;
pub mod retracted;
pub mod statement;
pub mod vocab;

pub use args::{Context, Filled, Missing, fill};
pub use decide::{Thresholds, Understood, decide, decide_worded};
pub use mentions::Mention;
pub use rank::{RankPrompt, Ranking, Style};
pub use reading::{Reading, read};
pub use vocab::{Entry, EntryKind, Vocabulary};
