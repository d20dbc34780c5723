//! Cue words: what the person said, as evidence beside the model's ranking.
//!
//! The ranking ([`super::rank`]) asks a 0.5B model how likely each tool is, and a model that
//! small weighs words oddly: "remember that the wifi password is pancake7" ranked the status
//! report 0.83 and the note 0.12, "scan Photos for duplicate content" ranked the listing first.
//! Yet some words say what is wanted almost by themselves: a person who says "remember" wants
//! something kept, one who says "duplicate" wants copies found. Those words are the cues here,
//! a few per tool, written from what each tool does (the same way as
//! `smart_voice::command_words`) and checked on the dev split only. Words that also go with
//! another tool are left out ("move" is also said to apply a move plan, "remove" to edit a
//! word out of a file), and the purge, whose work cannot be undone, is cued by its own word only.
//!
//! A cue is evidence, never a decision. Each tool with a cue in the sentence has its
//! probability among the calls multiplied by [`BOOST`] and the ranking is normalised again, so:
//!
//! - a sentence with no cue is ranked exactly as the model ranked it;
//! - cues of two tools in one sentence ("delete the duplicates") leave the choice between those
//!   two to the model;
//! - a tool the model finds far less likely than the best (by more than the boost) stays behind,
//!   and a cue for a tool the scope does not show lifts nothing;
//! - the words that name a file or folder are not cues: those a mention covers, and a cue that
//!   is itself the name of something that exists (a folder called `Archive`);
//! - a cue said as what not to do ("but don't move it yet", "do not delete Photos") is none,
//!   but an act said as not to be done yet cues the tools that only propose ("mark
//!   itinerary.txt for quarantine but don't actually move it" ranked the quarantine itself
//!   first; "don't apply it yet");
//! - whether the sentence asks for a call at all stays the model's: [`weigh`] keeps the model's
//!   own chance of a call to its best tool, which is what [`super::decide`] checks first, so a
//!   cue never turns "how do I delete a file in Windows" into a request.
//!
//! Every tool is still ranked by the model every time: a cue tilts the scale, as a person's
//! choice of word should; it reaches no tool the model was not already weighing.

use super::mentions::{Mention, MentionKind};
use super::rank::Ranking;
use super::reading::Reading;

/// How many times likelier a tool becomes when the sentence holds one of its cues: enough to
/// turn a model that prefers another tool up to eight to one. Measured with `smart-eval
/// --cue-boost` on the dev split (seed 501; typed, and the spoken transcripts replayed): right
/// calls typed 90.6 % at 1 (no cues), 94.3 % at 4 and at 8; spoken 54.7 %, 57.0 %, 57.4 %.
pub const BOOST: f32 = 8.0;

/// Cue phrases per tool, lower case. A word ending in `*` matches any word it begins
/// ("duplicat*": duplicate, duplicates, duplicated); the others match whole words.
pub const CUES: &[(&str, &[&str])] = &[
    // "blake3" as whisper writes it heard: "Blake 3", "Blake three", "Blake free" (a "th" heard
    // as "f"; three of the last spoken passes' eleven "blake3"s).
    (
        "fs.hash",
        &[
            "hash",
            "checksum",
            "checksums",
            "fingerprint",
            "sha256",
            "blake3",
            "blake 3",
            "blake three",
            "blake free",
            // The checksum programs' names, as people who use them say them ("need the b3sum of
            // checklist.zip asap" ranked reading it first, a thirty-second author).
            "sha",
            "sha1",
            "shasum",
            "sha1sum",
            "sha256sum",
            "md5",
            "md5sum",
            "b3sum",
        ],
    ),
    (
        "rag.search",
        &[
            "search",
            "mention",
            "mentions",
            "mentioning",
            "talk about",
            "talks about",
            "write about",
            "wrote about",
            "related to",
            "dig up",
            "dig it out",
            "dig them out",
            "dig out",
            "written up",
            "anything about",
            "something about",
            "look up",
            "look for",
            // A twenty-ninth author (non-native English): "the notes that talk of beekeeping",
            // "mosaic... give me just 5 results".
            "talk of",
            "talks of",
            "speak about",
            "speaks about",
            "speak of",
            "speaks of",
            "results",
            // "pull up whatever we got re mosaic, best hits first" (a thirty-second author).
            "hits",
            // "the documents aboot mosaic, which yins are the best match" (a forty-fourth author).
            "best match",
            "best matches",
        ],
    ),
    // What the reading reports beside the text ("what encoding is notes.txt in"), and reading
    // said aloud ("ok so quote.md — read it out" ranked a search first).
    (
        "fs.read",
        &[
            "encoding",
            "pull up",
            "pull it up",
            "read out",
            "read it out",
            "read aloud",
            "read it aloud",
            "read me",
            // "I have a little note called summary.md and I cannot remember what I put in it.
            // Show me the words inside, please." ranked a search 0.84 (a thirtieth author).
            "words inside",
            "the words in",
            "what's written in",
            "what is written in",
            // "I wish to peruse Payslips/manual.md; reproduce the text thereof" (a forty-second
            // author).
            "peruse",
            "the text thereof",
            // "take a peek at what packing list.md actually says" (a fifty-fourth author).
            "actually says",
            "what it says",
        ],
    ),
    // "context" alone is also the bundle's word; asked about, it is SMART's own. "lease" and
    // "budget" are left out: people have leases and budgets in their files. "tools" and
    // "allowed" are what the report lists ("which tools can you use right now" ranked applying
    // the move plan first).
    (
        "orbit.get_context",
        &[
            "status",
            "stance",
            "layer",
            "layers",
            "frontier",
            "situation",
            "what's the context",
            "what is the context",
            "tools",
            "allowed",
            // "which folders are ye let intae?" (a forty-fourth author).
            "you let into",
            "you let in",
            "you have access",
            "can you access",
            // "sorry before i ask anything — what can you actually see and do at the moment" (a
            // forty-sixth author).
            "what can you see",
            "what can you actually see",
            "can you see and do",
            // "give me the run down on your setup", "what folders can you actualy touch" (a
            // fiftieth author).
            "your setup",
            "can you touch",
            "can you actually touch",
            "allowed to touch",
            "your set up",
        ],
    ),
    // What a listing shows beside the names ("I wonder what's taking up all the space in
    // Wallpapers/old" ranked the duplicates first).
    (
        "fs.scan",
        &[
            "taking up",
            "takes up",
            "how much space",
            "how big",
            "how large",
            "kinds and sizes",
            "names and sizes",
            // "just need the kind and size for the audit tracker" ranked the hash 0.98 (a
            // thirty-fourth author); "its size and what sort of file it is".
            "kind and size",
            "size and kind",
            "sizes and kinds",
            "what kind of file",
            "what sort of file",
            "what type of file",
            // "what type of archive is agenda.jpg and how much it weighs" (a fifty-sixth author).
            "how much it weighs",
            "how much does it weigh",
            "footprint",
            "inventory",
            "what files",
            "just look",
            // "a little folder … Photos slash old I believe it is called. What have I got in
            // there" ranked the duplicates 0.66 (a thirtieth author).
            "what have i got",
            "what do i have in",
        ],
    ),
    // "check Flyers/misc for files that are exactly the same" (a forty-sixth author); "any of
    // them be twin of another one?" (a forty-eighth).
    ("cluster.duplicates", &["duplicat*", "identical", "same content", "exactly the same", "twin of"]),
    (
        "infer.superseded_docs",
        &[
            "outdated",
            "out of date",
            "supersed*",
            "stale",
            "obsolete",
            "old versions",
            "older versions",
            "newer version",
            "newer versions",
            "new version",
            "new versions",
            "older copies",
            "old copies",
            // "Chart the old revisions in photos slash old, the ones a newer copy has replaced"
            // (a thirty-eighth author).
            "old revisions",
            "older revisions",
            "earlier revisions",
            "previous revisions",
            "newer copy",
        ],
    ),
    // "stick them into one thing i can paste" (a forty-sixth author), "make it be one context"
    // (a forty-eighth).
    (
        "rag.assemble_context",
        &["assemble", "bundle", "combine", "gather", "tokens", "into one thing", "i can paste", "one context"],
    ),
    (
        "rag.validate_applicability",
        &[
            "validate",
            "up to date",
            "still current",
            "still valid",
            "still accurate",
            "changed since",
            "still match*",
            "on disk",
            "still good",
            "still right",
            // "the index is still correct about it or no?", "check if the index is outdated for
            // summary.md" (authors' dev): the index's own staleness, not a document's.
            "still correct",
            "index is outdated",
            "index is out of date",
            "index is stale",
            // "verify the index isnt stale for X" (a fifty-second author, dictated).
            "index isn't stale",
            "index isnt stale",
            "index is not stale",
            "index thinks",
            // "still what the library thinks they are" (a fifty-fourth author).
            "library thinks",
            "catalogue thinks",
            "index remembers",
            "nothing changed",
            "hasn't changed",
            "has not changed",
            "since the index",
            "since the library",
            "since indexing",
            "since it was indexed",
            "since they were indexed",
            "since last indexed",
            "index's back",
            "drifted",
            // Authors' dev: the index as "the catalogue", a file "still the same as
            // what you've got written down" (the duplicates had been ranked first).
            "still the same",
            "still as it was",
            "still as they were",
            "changed in the meantime",
            "changed it since",
            "changed them since",
            "catalogued",
            "cataloged",
            // A twenty-seventh author: "verify that X hasn't altered since it went into the
            // index", "does the library index still hold the right version of it".
            "altered since",
            "hasn't altered",
            "has not altered",
            "been altered",
            "modified since",
            "edited since",
            "went into the index",
            "right version",
            // "does yer index ken that or is it still thinkin o the auld wan" (a forty-fourth
            // author, Scots spelled out).
            "index know",
            "index knows",
            "still thinking of the old",
            // A fortieth author: "check if what u remember for A and B is still legit"; a
            // forty-second: "does the indexed version of X still correspond to its present
            // content hash?".
            "still legit",
            "indexed version",
            "still correspond*",
            // A forty-eighth author: "check whether the index still remember X correct", "the
            // library still sabi (knows) them as they are now?", "the index still get the
            // correct thing for it".
            "index still remember*",
            "library still remember*",
            "index still know*",
            "library still know*",
            "still get the correct",
            "still has the correct",
            "still have the correct",
        ],
    ),
    ("propose.patch", &["replace", "typo", "write up a patch", "draft the fix"]),
    // Not "move": "carry out the move plan" applies a plan, it does not make one.
    // "make the plan" is a plan to draft; "carry out the plan" applies one.
    (
        "propose.move",
        &[
            "rename",
            "relocat*",
            "belongs in",
            "belong in",
            "go into",
            "goes into",
            "go in",
            "goes in",
            "go under",
            "goes under",
            "make a plan",
            "make the plan",
            "draft a plan",
            "plan the moving",
            "plan moving",
            "set up the move",
            "set up a move",
            "should live",
            "be called",
            "be named",
            "be renamed",
            // A twenty-ninth author: "change the name of quote.png to scratch.txt", "this
            // file, I want to call it scratch.pdf now".
            "the name of",
            "its name",
            "call it",
            "name it",
            // A thirtieth author: "… ought to live in Podcasts. Kindly prepare the arrangements
            // for relocating it", "draw up a plan for shifting them both there".
            "ought to live",
            "draw up a plan",
            // "Flyers/misc belongs within the matter folder Garden Plans" (a forty-second author).
            "belongs within",
            "belong within",
        ],
    ),
    (
        "propose.redirects",
        &[
            "redirect",
            "redirects",
            "now lives",
            "forwarding",
            "used to be at",
            "used to be in",
            "used to live",
            "it was at",
            "was moved",
            "were moved",
            "got moved",
            "old-to-new",
            "old to new",
            "used to be",
            "formerly",
            "old location",
            "should point",
            "old links",
            "links to",
        ],
    ),
    // "quarantine" lifts the act, not the list: the model leans to drafting a list however the
    // quarantine is asked for ("get packing list.pdf out of the way, put it in quarantine"
    // ranked the list 0.40, the act under 0.10), so the list is lifted only by its own words
    // (or by an act said as not to be done yet). "quarantined" is neither: "throw the
    // quarantined things out for good" is a purge.
    // Its description's "with sizes and hashes, for review" is how people ask for the list too.
    (
        "propose.quarantine",
        &[
            "draft",
            "drafted",
            "quarantine list",
            "sizes and hashes",
            "review first",
            "review them first",
            "review it first",
            "candidates for",
            "for review",
            "for my review",
            // "flag X for quarantine review and include the hash" (a thirty-fourth author).
            "quarantine review",
            "touch nothing",
            // "Write up Photos for the brig. I'll inspect before we lock it away." (a
            // thirty-eighth author).
            "inspect before",
            "inspect it first",
            "inspect them first",
            // "kindly list it for quarantine pending the partner's sign-off" (a forty-second
            // author).
            "list it for",
            "list them for",
        ],
    ),
    // Not "record that": "record that Scans/old.pdf moved to todo.xlsx" asks for a redirect.
    (
        "db.upsert",
        &[
            "remember",
            // "Would you mind terribly remembering that the boiler man is called Trevor?" (a
            // fifty-fourth author).
            "mind remembering",
            "mind terribly remembering",
            "note that",
            "make a note",
            "log that",
            // "Log it: the boat's mooring number is B17", "Log entry under bilge: …" (a
            // thirty-eighth author).
            "log it",
            "log this",
            "log entry",
            "save this",
            "jot down",
            "jot something down",
            "jot this down",
            "jot that down",
            "jot it down",
            "note down",
            "note this down",
            "so i don't forget",
            "save a record",
            "log a record",
            "store a record",
            "add a record",
            "keep a record",
            "my preferences",
            "on record that",
            "keep in mind",
            "keep it in mind",
            "bear in mind",
            "store this",
            // A twenty-ninth author: "please save that my locker code is bluebird", "write in
            // the records that my badge number is 48213", "keep it in your records".
            "save that my",
            "save that i",
            "save that the",
            "in the records",
            "in your records",
            "in my records",
            "to the records",
            "to your records",
            // A thirty-second author: "fyi nas01 is the backup box, store that", "keep on
            // record: quote.png is the signed vendor contract", "stash this somewhere for me:
            // guest wifi pw is hunter2" (the wifi had made it a request for network settings).
            // Not "on record" alone: "make sure what you have on record for it still matches"
            // asks whether an index entry is current.
            "store that",
            "keep on record",
            "put on record",
            "stash this somewhere",
            "stash that somewhere",
            "stash this for me",
            "stash that for me",
            // "keep track that contacts.docx is my final essay not the draft" (a fortieth author).
            "keep track that",
            "keep track of the fact",
        ],
    ),
    // Not "remove": "remove the word colour from notes.txt" is an edit.
    (
        "fs.quarantine",
        &[
            "delete",
            "erase",
            "trash",
            "throw away",
            "get rid",
            "out of the way",
            // "get agenda.jpg out the way now" (a fiftieth author).
            "out the way",
            "isolate",
            "quarantine",
            "quarantining",
            "set aside",
            "setting aside",
            "put aside",
            "put apart",
            "eliminate",
            "tidy away",
            "tidy it away",
            // A thirtieth author: "tidy quote.png away out of sight now, somewhere it can be
            // fetched back from", "a list of things to set to one side".
            "out of sight",
            // "get contacts.docx outta here rn" (a fortieth author).
            "outta here",
            "out of here",
            "set to one side",
            "setting to one side",
            "put to one side",
            "bin",
            "toss",
            "chuck",
            "ditch",
            "yeet*",
            "nuke*",
            // Where things set aside are kept, in everyday words: "pop it into the holding
            // pen", "banish it to limbo", "on the shelf of the condemned".
            "holding pen",
            "limbo",
            "banish*",
            "condemn*",
            "doomed",
            "consign",
        ],
    ),
    // Not "archive", "tar" or "gz": "what's in the tar file" asks for a listing.
    // "… and set the originals aside": what the archive replaces, in the tool's own description.
    (
        "fs.compact",
        &[
            "compress*",
            "zip",
            "tarball",
            "originals",
            "box up",
            "pack up",
            "squash",
            "make archive",
            "make an archive",
            // "I'd like Clients boxed up and shrunk down" (a thirtieth author).
            "shrink*",
            "shrunk*",
            "boxed up",
            // "archive" as a verb on something said before ("clients is eating disk, archive
            // it" ranked the duplicates, a thirty-second author); alone it may be a folder's
            // name or a kind of file.
            "archive it",
            "archive them",
            "archive this",
            "archive that",
            "archive everything",
        ],
    ),
    (
        "rebuild.index",
        &[
            "rebuild",
            "reindex",
            "re-index",
            "regenerate",
            "from scratch",
            "afresh",
            "from the beginning",
            "from the very beginning",
            "all over again",
            // "is possible to reconstruct all the library index?"
            "reconstruct*",
            // "just make the library thing fresh again" (a fortieth author).
            "fresh again",
        ],
    ),
    // Only the purge's own word: "for good" or "permanently" also go with a quarantine or a
    // move, and the purge is the one tool whose work cannot be undone.
    ("quarantine.purge", &["purge"]),
];

/// Tools chosen only when the person uses words of their own, whatever the model ranks: the
/// purge, whose work cannot be undone, is not what "throw away the index and regenerate the
/// whole thing" asks for (ranked 0.96), nor "bin changelog.pdf for now". Broader than its cue
/// ("purge"): these words permit the tool, they do not lift it.
///
/// The quarantine list too: the model drafts a list however a quarantine is asked for ("Please
/// take floor plan.csv out of the way, put it in the quarantine" ranked the list 0.53 before
/// cues, the act far behind), while people who want a list to look at say so — a list, a
/// review, a draft, a proposal, something marked or written up, not yet, first.
pub const OWN_WORDS_ONLY: &[(&str, &[&str])] = &[
    (
        "quarantine.purge",
        &[
            "purge*",
            "permanent*",
            // "delete for always the batch …" (Portuguese "para sempre").
            "for always",
            "for good",
            "forever",
            "for ever",
            "irreversibl*",
            "irrevocabl*",
            "definitiv*",
            "once and for all",
            "no undo",
            "empty the",
            "empty out",
            "empty quarantine",
            "wipe*",
            // "Those files sitting in the bin from yesterday's batch, destroy them altogether"
            // (a thirtieth author).
            "destroy*",
            // "that quarantine batch 3c0f… nuke it i dont need any of it" (a fifty-second
            // author): said of a file, the quarantine's word too.
            "nuke*",
            // "rm -rf the quarantined batch 66c1…, dont need undo" (a thirty-second author):
            // the shell's forced delete, and the undo said not to be needed.
            "-rf",
            "don't need undo",
            "dont need undo",
            "don't need an undo",
            "dont need an undo",
            "no need to undo",
            "no need for undo",
            "without undo",
            "without an undo",
        ],
    ),
    (
        "propose.quarantine",
        &[
            "list*",
            "review*",
            "draft*",
            "prepar*",
            "propos*",
            "suggest*",
            "plan",
            "plans",
            "candidate*",
            "mark*",
            "write up",
            "write down",
            "look it over",
            "look over",
            "look them over",
            "yet",
            "first",
            "before",
            "sizes",
            "hashes",
        ],
    ),
];

/// The [`OWN_WORDS_ONLY`] tools whose words the reading does not hold (outside names and
/// negations, as cues are found) and that are not among the tools it cues ([`cued`], which the
/// caller has already found): an act said as not to be done yet cues the list ("quarantine
/// notes.txt but don't actually move it"). And the hash, when [`cued`] set it aside as what
/// the index check compares.
pub fn unsaid(
    reading: &Reading,
    mentions: &[Mention],
    is_name: &dyn Fn(&str) -> bool,
    cued: &[&str],
) -> Vec<&'static str> {
    let said = Said::new(reading, mentions, is_name);
    let mut out: Vec<&'static str> = OWN_WORDS_ONLY
        .iter()
        .filter(|(tool, phrases)| !cued.contains(tool) && !phrases.iter().any(|p| said.has(p)))
        .map(|(tool, _)| *tool)
        .collect();
    // The hash the index check compares ([`cued`] sets its cue aside) is not asked for either:
    // the model alone ranked it 0.85 for "make sure X is still valid in the libary, the hash i
    // mean" (a fiftieth author).
    if cued.contains(&VALIDATE) && !cued.contains(&HASH) && index_named(&said) && !asks_for_the_hash(&said) {
        out.push(HASH);
    }
    out
}

/// Whether the index is named in words of its own, outside names and outside the index
/// check's own phrases ("is the index stale" names it once, as one phrase).
fn index_named(said: &Said) -> bool {
    let in_a_phrase =
        |i: usize| cues_of(VALIDATE).filter_map(|p| said.span(p)).any(|(start, end)| (start..end).contains(&i));
    (0..said.words.len()).any(|i| !said.covered[i] && INDEX_WORDS.contains(&said.words[i].as_str()) && !in_a_phrase(i))
}

/// Whether the hash is asked for on its own ("and what's its hash", "the hash of it"), not
/// only said as what the index check compares ("…, the hash i mean").
fn asks_for_the_hash(said: &Said) -> bool {
    ["hash of", "its hash", "what's the hash", "what is the hash", "whats the hash", "and the hash", "also the hash"]
        .iter()
        .any(|p| said.has(p))
}

/// `ranking` without `tools`, normalised again; unchanged when none of them is ranked, and
/// empty (no call) when nothing else is.
pub fn without(ranking: &Ranking, tools: &[&str]) -> Ranking {
    let mut kept: Vec<(String, f32)> =
        ranking.tools.iter().filter(|(t, _)| !tools.contains(&t.as_str())).cloned().collect();
    if kept.len() == ranking.tools.len() || kept.is_empty() {
        return Ranking { tools: kept, ..ranking.clone() };
    }
    super::rank::normalise(&mut kept);
    Ranking { tools: kept, p_call: ranking.p_call, best_call: ranking.best_call }
}

/// A reading's words as cue phrases are looked for in them: plain, with the words that name
/// files or folders (a mention's) set apart. One for the cues, the own words of the purge and
/// the quarantine list, and the words for what no tool does.
pub(super) struct Said<'a> {
    raw: &'a [String],
    words: Vec<String>,
    covered: Vec<bool>,
    is_name: &'a dyn Fn(&str) -> bool,
}

impl<'a> Said<'a> {
    pub(super) fn new(reading: &'a Reading, mentions: &[Mention], is_name: &'a dyn Fn(&str) -> bool) -> Said<'a> {
        let words: Vec<String> = reading.words.iter().map(|w| plain(w)).collect();
        let mut covered = vec![false; words.len()];
        // "it" pointing back at the last thing acted on is still a word of the phrase it is in:
        // "keep it in mind that …", "so I can look it over first".
        for m in mentions.iter().filter(|m| m.kind != MentionKind::Back) {
            for c in covered.iter_mut().take(m.end.min(words.len())).skip(m.start) {
                *c = true;
            }
        }
        Said { raw: &reading.words, words, covered, is_name }
    }

    /// Whether `phrase` is said outside the names, not negated, and is not itself the name of
    /// something that exists (a folder called `Archive` makes "archive" a name).
    pub(super) fn has(&self, phrase: &str) -> bool {
        self.span(phrase).is_some()
    }

    /// Where the first saying of `phrase` (as [`Said::has`] finds it) starts and ends, in words.
    fn span(&self, phrase: &str) -> Option<(usize, usize)> {
        occurs(phrase, self.raw, &self.words, &self.covered)
            .filter(|(_, said)| !(self.is_name)(said))
            .map(|(start, said)| (start, start + said.split(' ').count()))
    }
}

/// A word as cues compare it: lower case, without the punctuation around it.
pub(super) fn plain(word: &str) -> String {
    word.replace('’', "'").trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-').to_lowercase()
}

fn word_matches(cue: &str, word: &str) -> bool {
    match cue.strip_suffix('*') {
        Some(stem) => word.starts_with(stem),
        None => word == cue,
    }
}

/// Words that turn the cues after them around: "but don't move it yet", "do not move or delete
/// Photos".
const NEGATIONS: &[&str] = &["don't", "dont", "not", "never", "without"];

/// Words that end the reach of a negation: "don't ask, just delete it".
const CLAUSE_ENDS: &[&str] = &["but", "then", "and", "so", "just", "instead"];

/// How many words back a negation reaches.
const NEGATION_REACH: usize = 3;

/// Whether the word at `at` is said as what not to do: a negation within
/// [`NEGATION_REACH`] words before it, in the same clause (no comma or full stop between).
pub(super) fn negated(raw: &[String], words: &[String], at: usize) -> bool {
    for back in 1..=NEGATION_REACH.min(at) {
        let i = at - back;
        if raw[i].ends_with([',', '.', ';', ':', '!', '?']) {
            return false;
        }
        // "not just a list", "not only a list": "just" right after the negation is part of it.
        let part_of_negation = i > 0 && matches!(words[i].as_str(), "just" | "only") && words[i - 1] == "not";
        if CLAUSE_ENDS.contains(&words[i].as_str()) && !part_of_negation {
            return false;
        }
        if NEGATIONS.contains(&words[i].as_str()) {
            return true;
        }
    }
    false
}

/// Where `phrase` occurs in `words` at a position no mention covers, not negated: where it
/// starts, and the matched words, space-joined.
fn occurs(phrase: &str, raw: &[String], words: &[String], covered: &[bool]) -> Option<(usize, String)> {
    let parts: Vec<&str> = phrase.split(' ').collect();
    (0..words.len()).find_map(|start| {
        let whole = said_at(&parts, words, start) && !covered[start..start + parts.len()].contains(&true);
        (whole && !negated(raw, words, start) && !of_own_memory(words, start))
            .then(|| (start, words[start..start + parts.len()].join(" ")))
    })
}

/// Whether "remember" at `at` is said of the person's own memory — "I'm trying to remember where
/// I wrote about it", "I can't remember", "as I remember it" — which asks for no record. "I want
/// you to remember that …" and "help me remember" do.
fn of_own_memory(words: &[String], at: usize) -> bool {
    // "I cannot for the life of me remember whether…": the person's own negation a few words
    // back ("don't move it, just remember that …" still asks).
    let cannot = (at.saturating_sub(6).max(1)..at).any(|k| {
        matches!(words[k].as_str(), "can't" | "cant" | "cannot" | "couldn't" | "don't" | "dont" | "never")
            && matches!(words[k - 1].as_str(), "i" | "we")
    });
    // "I still remember it", "the index still remember X correct" (a forty-eighth author):
    // the person's memory, or the index's, said with an adverb between.
    let adverb_of = |who: &[&str]| {
        at >= 2
            && matches!(words[at - 1].as_str(), "still" | "do" | "well" | "clearly" | "vaguely" | "only" | "just")
            && who.contains(&words[at - 2].as_str())
    };
    let the_indexs = |k: usize| matches!(words[k].as_str(), "index" | "library" | "catalogue" | "catalog");
    words[at] == "remember"
        && at > 0
        && (cannot
            || adverb_of(&["i", "we"])
            || the_indexs(at - 1)
            || (at >= 2 && words[at - 1] == "still" && the_indexs(at - 2))
            || match words[at - 1].as_str() {
                "i" | "we" | "can't" | "cant" | "cannot" | "couldn't" | "could" => true,
                // "would you be so kind as to remember that …" asks, as "I want you to" does.
                "to" => at < 2 || !matches!(words[at - 2].as_str(), "you" | "u" | "me" | "as"),
                // "check if what u remember for A and B is still legit" (a fortieth author):
                // what is already kept, asked about, not something new to keep.
                "you" | "u" => {
                    (at >= 2 && words[at - 2] == "what")
                        || (at >= 3 && words[at - 2] == "do" && words[at - 3] == "what")
                }
                _ => false,
            })
}

/// Whether the phrase of `parts` is said in `words` starting at `start`.
fn said_at(parts: &[&str], words: &[String], start: usize) -> bool {
    start + parts.len() <= words.len() && parts.iter().enumerate().all(|(k, p)| word_matches(p, &words[start + k]))
}

/// Where the cue phrases of more than one word lie among `words` (as [`plain`] gives them),
/// negated or not: a one-word name inside one is a word of the phrase, not a name ("which of
/// those are old versions", with a folder called old, asked about that folder).
pub(super) fn phrase_spans(words: &[String]) -> Vec<(usize, usize)> {
    let mut spans = vec![];
    for phrase in CUES.iter().flat_map(|(_, phrases)| phrases.iter()).filter(|p| p.contains(' ')) {
        let parts: Vec<&str> = phrase.split(' ').collect();
        spans.extend((0..words.len()).filter(|&start| said_at(&parts, words, start)).map(|s| (s, s + parts.len())));
    }
    spans
}

/// The tool whose cue makes the rest of the sentence its content: what comes after "save a
/// record:" or "remember that" is what to keep, not what to do ("save a record: project status
/// = quokka" was cued as the status report too, and the model preferred it).
const RECORD: &str = "db.upsert";

/// The tools whose cues the reading holds, outside the words that name files or folders: those
/// a mention covers, and any cue that is itself the name of something that exists (`is_name`:
/// a folder called `Archive` makes "archive" a name, not a request).
pub fn cued(reading: &Reading, mentions: &[Mention], is_name: &dyn Fn(&str) -> bool) -> Vec<&'static str> {
    let said = Said::new(reading, mentions, is_name);
    // Where a record's content begins, if the sentence asks for one.
    let content = cues_of(RECORD).filter_map(|p| said.span(p)).min().map(|(_, end)| end);
    let before_content = |p: &str| said.span(p).is_some_and(|(start, _)| content.is_none_or(|c| start < c));
    let mut tools: Vec<&'static str> = CUES
        .iter()
        .filter(|(tool, phrases)| phrases.iter().any(|p| if *tool == RECORD { said.has(p) } else { before_content(p) }))
        .map(|(tool, _)| *tool)
        .collect();
    if let Some(tool) = typed_command(&said, mentions)
        && !tools.contains(&tool)
    {
        tools.push(tool);
    }
    let placed = places(&said.words, mentions);
    if placed {
        if !tools.contains(&MOVE) {
            tools.push(MOVE);
        }
        // "chuck transcript.json into Band Practice": a verb that throws a thing away puts it
        // somewhere once a place is named; only another word for the quarantine keeps it.
        let discards_otherwise = cues_of(QUARANTINE).any(|p| !PLACING.contains(p) && said.has(p));
        if !discards_otherwise {
            tools.retain(|t| *t != QUARANTINE);
        }
        // "park contacts.docx in Garden Plans … just draft the plan" (a thirty-fourth author):
        // with a place named, a draft is the move's, unless the list is asked for in words of
        // its own ("candidates for", "for review").
        let listed_otherwise = cues_of(LIST).any(|p| !matches!(*p, "draft" | "drafted") && said.has(p));
        if !discards_otherwise && !listed_otherwise {
            tools.retain(|t| *t != LIST);
        }
    }
    // "get rid o quarantine batch a5d0… fur good" (a forty-fourth author): a batch is in the
    // quarantine already, so words for setting aside said of one are no quarantine; with the
    // purge's own words too ([`OWN_WORDS_ONLY`]: "delete that batch for good"), they ask for
    // the purge.
    if said.words.iter().any(|w| w == "batch" || w == "batches") && tools.contains(&QUARANTINE) {
        tools.retain(|t| *t != QUARANTINE);
        let purge_words = OWN_WORDS_ONLY.iter().filter(|(t, _)| *t == PURGE).flat_map(|(_, p)| p.iter());
        if purge_words.clone().any(|p| said.has(p)) && !tools.contains(&PURGE) {
            tools.push(PURGE);
        }
    }
    // "make archive of it and put the originals in quarantine": setting the originals aside is
    // what the archive does (its own description says so), not a quarantine of its own — when
    // the archive is asked for in words of its own too.
    let archive_said = cues_of(COMPACT).any(|p| *p != "originals" && said.has(p));
    if said.has("originals") && archive_said {
        tools.retain(|t| *t != QUARANTINE);
    }
    // "make sure X is still valid in the libary, the hash i mean" (a fiftieth author): with the
    // index named, a hash said beside the index check's words is what that check compares
    // (its own description says so), not a hash asked for on its own.
    if index_named(&said) && tools.contains(&VALIDATE) && !asks_for_the_hash(&said) {
        tools.retain(|t| *t != HASH);
    }
    // "draft a patch …: strike walnut and insert thursday", "kindly propose that correction",
    // "prepare a plan to relocate contacts.docx" (a forty-second author): the thing to be
    // drafted named is what is asked for, and "draft" is then no word of the quarantine list.
    if let Some(tool) = drafted_thing(&said) {
        tools.retain(|t| *t != LIST || cues_of(LIST).any(|p| !matches!(*p, "draft" | "drafted") && said.has(p)));
        if !tools.contains(&tool) {
            tools.push(tool);
        }
    }
    // "add guest_list.csv to a yeet list" ("a throw away list"): an act said with "a … list"
    // drafts the list.
    let a_list = asks_for_a_list(&said);
    // "write up Flyers as something to quarantine so I can look it over first": the act's
    // words with words for looking the list over ask for the list too.
    if the_act_said(&said, placed) && to_review(&said) && !tools.contains(&LIST) {
        tools.push(LIST);
    }
    if a_list && tools.contains(&QUARANTINE) {
        tools.retain(|t| *t != QUARANTINE);
        if !tools.contains(&LIST) {
            tools.push(LIST);
        }
    }
    let (words, covered) = (&said.words, &said.covered);
    // "but don't actually move it", "don't apply it yet": what is asked for is the proposal
    // ("do not move or delete Photos", with no "yet", is a warning, not a request).
    let not_yet = (0..words.len()).any(|i| {
        // "Don't do the setting aside yet" (a thirtieth author): four words on.
        let later = words[i + 1..].iter().take(4).any(|w| w == "yet");
        let actually = i > 0 && words[i - 1] == "actually";
        // "don't do anything with Clients/raw yet" names no act (a thirty-fourth author).
        let nothing = words.get(i + 1).is_some_and(|w| matches!(w.as_str(), "anything" | "nothing"));
        !covered[i]
            && !nothing
            && NOT_YET_VERBS.contains(&words[i].as_str())
            && negated(&reading.words, words, i)
            && (later || actually)
    });
    if not_yet {
        tools.retain(|t| !ACTING.contains(t));
        for t in PROPOSING {
            if !tools.contains(t) {
                tools.push(t);
            }
        }
    }
    tools
}

/// Verbs for writing something up to be looked at before it is done.
/// "Could you sketch out the move for me to look over?" (a fifty-fourth author).
const DRAFTING: &[&str] = &["draft", "prepare", "propose", "redraft", "draw", "sketch"];

/// Everyday verbs of making that draft what is named at most three words on ("make a plan",
/// "write the moving plan").
const MAKING: &[&str] = &["make", "write"];

/// What a drafting verb may make, and the tool that makes it: an edit ("a patch", "that
/// correction", "the redline") or a move ("a plan to relocate", "the transfer"). Not "change",
/// which is as often a verb ("prepare to change …"), nor "list", which is the quarantine's.
const DRAFTED: &[(&str, &[&str])] = &[
    ("propose.patch", &["patch", "amendment", "correction", "redline", "edit", "fix"]),
    ("propose.move", &["plan", "transfer", "relocation", "move", "rename"]),
];

/// The tool that drafts what a [`DRAFTING`] verb is said of, at most seven words on ("draft a
/// patch", "propose that correction", "prepare the redline", "draw up a plan"), the verb not
/// negated. A "plan" that is a quarantine's ("a plan to quarantine …") is the list's, which
/// its own words lift.
/// The tool whose proposal the reading asks to be drafted in so many words ([`drafted_thing`]):
/// with the proposal's own contents said too (the edit's old and new words, what moves where),
/// it is asked for twice — "copper in newsletter.txt shall hereinafter read linen - prepare the
/// redline" ranked reading the file above the patch (a forty-second author).
pub fn drafted(reading: &Reading, mentions: &[Mention], is_name: &dyn Fn(&str) -> bool) -> Option<&'static str> {
    drafted_thing(&Said::new(reading, mentions, is_name))
}

fn drafted_thing(said: &Said) -> Option<&'static str> {
    let words = &said.words;
    (0..words.len()).find_map(|i| {
        // "make plan to shift …", "write the moving plan" (a forty-eighth author): the
        // everyday verbs of making, with the thing made right after ("make sure the plan …",
        // "write down that …" make nothing).
        let everyday = MAKING.contains(&words[i].as_str())
            && !words.get(i + 1).is_some_and(|w| matches!(w.as_str(), "sure" | "down" | "it" | "that" | "me"));
        if !(DRAFTING.contains(&words[i].as_str()) || everyday) || said.covered[i] || negated(said.raw, words, i) {
            return None;
        }
        // "Please draft, but on no account execute, the transfer of agenda.jpg": a few words
        // may come between, but not a list ("draft a list of things to move").
        let reach = if everyday { 4 } else { 8 };
        let noun = words[i + 1..words.len().min(i + reach)]
            .iter()
            .take_while(|w| !matches!(w.as_str(), "list" | "lists"))
            .find_map(|w| DRAFTED.iter().find(|(_, nouns)| nouns.contains(&w.as_str())).map(|(tool, _)| *tool))?;
        // "Pray make the correction." (authors' dev, after a patch was drafted): made, the edit
        // pointed at is the one drafted, carried out; "make a fix" drafts one.
        let pointed = words.get(i + 1).is_some_and(|w| matches!(w.as_str(), "the" | "that" | "this"));
        if everyday && words[i] == "make" && pointed && noun == "propose.patch" {
            return None;
        }
        let for_quarantine = words[i..words.len().min(i + 8)].iter().any(|w| w.starts_with("quarantin"));
        // "looks good make the edit for real" (a fifty-second author): made for real is the
        // drafted edit carried out, not another drafted.
        let for_real = everyday && words[i + 1..].windows(2).any(|w| w[0] == "for" && w[1] == "real");
        (!for_quarantine && !for_real).then_some(noun)
    })
}

/// Shell commands, typed as a request by someone who spends the day in a terminal ("ls
/// Photos", "less notes.md, top part is fine", "mv contacts.docx Garden Plans/"), and the tool
/// that does what each does. Most are also ordinary words ("less", "more", "head", "tree"), so
/// one is a cue only as the reading's first word and right before a name (past any flags: "ls
/// -la Photos"), where no other sense fits. Not `rm`: deleting is a quarantine here, but "rm
/// -rf" asks for what cannot be undone, and the purge is chosen by its own words only. Not the
/// checksum programs (`b3sum`, `sha256sum`…): those are the hash's cues wherever they are said.
const COMMANDS: &[(&str, &str)] = &[
    ("ls", "fs.scan"),
    ("dir", "fs.scan"),
    ("du", "fs.scan"),
    ("tree", "fs.scan"),
    ("cat", "fs.read"),
    ("less", "fs.read"),
    ("more", "fs.read"),
    ("head", "fs.read"),
    ("mv", MOVE),
];

/// The tool of a shell command ([`COMMANDS`]) typed as the reading's first word, before a name.
fn typed_command(said: &Said, mentions: &[Mention]) -> Option<&'static str> {
    let first = said.words.first().filter(|_| !said.covered[0])?;
    let tool = COMMANDS.iter().find(|(command, _)| first == command).map(|(_, tool)| *tool)?;
    let mut next = 1;
    while said.raw.get(next).is_some_and(|w| w.starts_with('-')) {
        next += 1;
    }
    mentions
        .iter()
        .any(|m| m.kind != MentionKind::Back && !m.candidates().is_empty() && m.start == next)
        .then_some(tool)
}

const MOVE: &str = "propose.move";
const HASH: &str = "fs.hash";
const VALIDATE: &str = "rag.validate_applicability";
const QUARANTINE: &str = "fs.quarantine";
const COMPACT: &str = "fs.compact";
const PURGE: &str = "quarantine.purge";

/// The cue phrases of `tool` (none for a tool [`CUES`] does not list).
pub(super) fn cues_of(tool: &str) -> impl Iterator<Item = &'static &'static str> + '_ {
    CUES.iter().filter(move |(t, _)| *t == tool).flat_map(|(_, phrases)| phrases.iter())
}

/// Whether the words ask for a list to be made: "list" (or "roll") with "a" at most three
/// words before it ("add guest_list.csv to a yeet list", "a roll of the doomed"), or "just the
/// list". Not "the list" alone: "shift the things on the list you made into the holding pen"
/// carries out a list made before.
fn asks_for_a_list(said: &Said) -> bool {
    let a_list = (0..said.words.len()).any(|i| {
        matches!(said.words[i].as_str(), "list" | "lists" | "roll")
            && !said.covered[i]
            && said.words[i.saturating_sub(3)..i].iter().any(|w| w == "a")
            // "quarantine Payslips now, not just a list" (a thirty-second author).
            && !negated(said.raw, &said.words, i)
    });
    a_list || ["just the list", "only the list"].iter().any(|p| said.has(p))
}

/// Whether the quarantine's own words are said (cued or not: a list drafted with them lifts
/// the list instead, [`cued`]). A [`PLACING`] verb that puts a thing in a named place is no
/// word of the quarantine: "park contacts.docx in Garden Plans … just draft the plan" drafts
/// a move (a thirty-fourth author).
fn the_act_said(said: &Said, placed: bool) -> bool {
    cues_of(QUARANTINE).any(|p| said.has(p) && !(placed && PLACING.contains(p)))
}

/// Everyday verbs for putting a thing somewhere ("stick playlist.json in Blueprints", "tidy
/// journal.png into Wallpapers, it shouldn't be lying around loose", "chuck it into Letters").
/// Not "move", which also names a plan to carry out, nor "file", a noun as often ("the file
/// notes.txt in Letters"). Some also throw things away ("chuck", "toss", "dump"): with a place
/// named they put.
const PLACING: &[&str] = &[
    "put", "stick", "stash", "shove", "pop", "place", "tuck", "tidy", "slot", "park", "drop", "chuck", "toss", "dump",
    // "Stow contacts.docx in the Garden Plans locker", "Haul A and B both into Flyers" (a
    // thirty-eighth author).
    "stow", "haul", "lug", "bung", // "shift contacts.docx intae Garden Plans" (a forty-fourth author).
    "shift",
];

/// Whether the words put something named somewhere named: a [`PLACING`] verb before the first
/// thing named, and a second thing after "in", "into", "inside" or "under" — the model had
/// ranked a context bundle (0.76) and a note (0.68) for two such sentences.
///
/// The things may also come first, the verb after them ("Please, A and B, both of them put
/// inside of Flyers/misc", a twenty-ninth author), as long as no subject says the verb ("the
/// letter I put in Taxes" tells where it is).
fn places(words: &[String], mentions: &[Mention]) -> bool {
    let named: Vec<&Mention> = mentions.iter().filter(|m| !m.candidates().is_empty()).collect();
    let [first, rest @ ..] = named.as_slice() else { return false };
    let into = |m: &Mention| m.preposition.as_deref().is_some_and(|p| matches!(p, "in" | "into" | "inside" | "under"));
    let verb_first = words[..first.start.min(words.len())].iter().any(|w| PLACING.contains(&w.as_str()));
    // A verb of putting before the place, with no subject before the verb.
    let placed_before = |end: usize| {
        (0..end.min(words.len())).any(|i| {
            PLACING.contains(&words[i].as_str())
                && (i == 0 || !matches!(words[i - 1].as_str(), "i" | "we" | "you" | "they" | "he" | "she" | "who"))
        })
    };
    rest.iter().any(|m| into(m) && (verb_first || placed_before(m.start)))
}

/// Whether the sentence asks what a folder holds in the everyday shape of that question —
/// "what's in the Clients file drawer", "Podcasts contents?", "the contents of raw" — which is
/// the listing, whatever else the folder's name might suggest to the model (it ranked the
/// duplicates 0.50 and the listing 0.32 for the first, 0.37 and 0.34 for the second). Only
/// for a folder named right there (`is_dir`): "what's in todo.md" asks for its text, and "the
/// contents of warranty.md" too. Not a cue word, since it depends on what is named.
pub fn asks_whats_in(reading: &Reading, mentions: &[Mention], is_dir: &dyn Fn(&Mention) -> bool) -> bool {
    let words: Vec<String> = reading.words.iter().map(|w| plain(w)).collect();
    // The question's opening words, then at most two words such as "the" or "my" before the name.
    let asked_before = |m: &Mention| {
        WHATS_IN.iter().any(|q| {
            let q: Vec<&str> = q.split(' ').collect();
            (0..=2).any(|gap| {
                let Some(k) = m.start.checked_sub(q.len() + gap) else { return false };
                said_at(&q, &words, k) && words[k + q.len()..m.start].iter().all(|w| BETWEEN.contains(&w.as_str()))
            })
        })
    };
    // "whats in the hold at clients" (a thirty-eighth author), "what is lurking inside the box
    // called Clients/raw" (authors' dev): the question, then a word for a container and the
    // word that names it.
    let container_named = |m: &Mention| {
        let naming = m.start.checked_sub(1).is_some_and(|k| matches!(words[k].as_str(), "called" | "named" | "at"));
        naming
            && WHATS_IN.iter().chain(LURKING).any(|q| {
                let q: Vec<&str> = q.split(' ').collect();
                (2..=4).any(|gap| {
                    let Some(k) = m.start.checked_sub(q.len() + gap) else { return false };
                    said_at(&q, &words, k) && BETWEEN.contains(&words[k + q.len()].as_str())
                })
            })
    };
    // "Podcasts contents?": the word right after the name.
    let contents_after = |m: &Mention| words.get(m.end).is_some_and(|w| w == "contents");
    // "tell me what the Garden Plans papers actually contain" (authors' dev): "what" before the
    // name, a verb of holding after it, a word for its contents and an adverb between.
    let what_it_holds = |m: &Mention| {
        let mut k = m.start;
        while k > 0 && (BETWEEN.contains(&words[k - 1].as_str()) || matches!(words[k - 1].as_str(), "does" | "do")) {
            k -= 1;
        }
        let mut e = m.end;
        while words.get(e).is_some_and(|w| HELD_NOUNS.contains(&w.as_str())) {
            e += 1;
        }
        k > 0
            && words[k - 1] == "what"
            && words.get(e).is_some_and(|w| matches!(w.as_str(), "contain" | "contains" | "hold" | "holds"))
    };
    mentions
        .iter()
        .any(|m| is_dir(m) && (asked_before(m) || contents_after(m) || what_it_holds(m) || container_named(m)))
}

/// Whether the reading has a verb of listing ("please list the contents of Clients/raw"): with
/// [`asks_whats_in`], the listing asked for twice (a forty-second author's sentence ranked a
/// search above it, for the "doubt" of "for the avoidance of doubt").
pub fn says_listing(reading: &Reading) -> bool {
    reading.words.iter().any(|w| matches!(plain(w).as_str(), "list" | "enumerate" | "itemise" | "itemize"))
}

/// The question "what is in" with a verb of being kept between: "what is lurking inside …".
const LURKING: &[&str] = &[
    "what is lurking inside",
    "what's lurking inside",
    "what is lurking in",
    "what's lurking in",
    "what is sitting in",
    "what's sitting in",
    "what is stowed in",
    "what's stowed in",
    "what is kept in",
    "what's kept in",
];

/// Words between a folder's name and "contain" in "what the Garden Plans papers actually
/// contain".
const HELD_NOUNS: &[&str] =
    &["folder", "papers", "files", "documents", "docs", "drawer", "box", "section", "actually", "really", "even"];

/// Whether the sentence has the shape of a search without a search's word: the person says they
/// wrote something on a topic ("I'm SURE I wrote something about photosynthesis … can you find
/// it", "I once wrote at length on kayak; would you see what turns up", "i wrote some code about
/// saxophone somewhere") or asks what the index holds on one ("is there something in the index
/// about volcano", "anything in the catalogue to do with beekeeping"). The model ranked the
/// duplicates, a note or no call above the search for those; with the topic in the index too
/// ([`topic_is_indexed`]) the search is asked for twice. The topic must be said, not named: "is
/// the index still right about todo.md" asks whether an entry is current.
pub fn asks_what_was_written(reading: &Reading, mentions: &[Mention]) -> bool {
    let words: Vec<String> = reading.words.iter().map(|w| plain(w)).collect();
    let covered = |i: usize| mentions.iter().any(|m| !m.candidates().is_empty() && m.start <= i && i < m.end);
    // A topic's marker said at `k`, then (past "the", "my", …) a word that is neither a pronoun
    // nor a name.
    let topic_after = |k: usize, markers: &[&str]| {
        markers.iter().any(|marker| {
            let parts: Vec<&str> = marker.split(' ').collect();
            let mut after = k + parts.len();
            while words.get(after).is_some_and(|w| DETERMINERS.contains(&w.as_str())) {
                after += 1;
            }
            said_at(&parts, &words, k)
                && words.get(after).is_some_and(|w| !w.is_empty() && !PRONOUNS.contains(&w.as_str()))
                && !covered(after)
        })
    };
    let topic_at = |k: usize| topic_after(k, ABOUT);
    (0..words.len()).filter(|&i| !covered(i)).any(|i| {
        let w = words[i].as_str();
        // "Is there anything in the Clients folder to do with harpsichord?" (a thirtieth
        // author): anything said to be about a topic, wherever it is looked for — not "on",
        // which also says where ("anything in Photos on the desktop").
        // "pull up whatever we got re mosaic" (a thirty-second author).
        let anything = matches!(w, "anything" | "something" | "whatever")
            && (i + 1..words.len().min(i + 8)).any(|k| topic_after(k, ANYTHING_ABOUT));
        if anything {
            return true;
        }
        // "locate all instruments in respect of beekeeping", "identify those materials in the
        // matter folder Photos which concern volcano" (a forty-second author): a verb of finding,
        // then what is found said to be about a topic. Not "find out about …", which asks to be told.
        // "dig thru Photos/old for stuff on mosaic" (a fifty-seventh author), "look in the
        // library for information of mosaic" (a fifty-sixth): what is looked for said, right
        // there, to be on a topic.
        if MATERIAL.contains(&w) && topic_after(i + 1, MATERIAL_ABOUT) {
            return true;
        }
        let finding = FINDING.contains(&w)
            && words.get(i + 1).is_none_or(|n| n != "out")
            && (i + 1..words.len().min(i + 10)).any(|k| topic_after(k, FOUND_ABOUT));
        if finding {
            return true;
        }
        let wrote = WROTE.contains(&w) && (i + 1..words.len().min(i + 5)).any(topic_at);
        let in_the_index = INDEX_WORDS.contains(&w)
            && i >= 2
            && words[i - 2] == "in"
            && matches!(words[i - 1].as_str(), "the" | "your" | "my")
            && (i + 1..words.len().min(i + 3)).any(topic_at);
        wrote || in_the_index
    })
}

/// Past forms of writing down: "write" itself also asks for a note ("write a note about the boiler").
/// "I rather think I filed some papers on volcano at one point" (a fifty-fourth author): filed
/// and saved away too.
const WROTE: &[&str] = &["wrote", "written", "jotted", "filed", "saved", "stashed"];
/// What the person may call the search index.
const INDEX_WORDS: &[&str] = &["index", "catalogue", "catalog", "library"];
/// The words that lead into a topic after those.
const ABOUT: &[&str] = &["about", "on", "regarding", "concerning", "to do with"];
/// The words that lead from "anything" into its topic.
const ANYTHING_ABOUT: &[&str] = &["about", "regarding", "concerning", "to do with", "re"];
/// Words for whatever is written on a topic, said right before it ([`MATERIAL_ABOUT`]).
const MATERIAL: &[&str] = &["stuff", "information", "info"];
/// The words that lead from [`MATERIAL`] into its topic: "of" too ("information of mosaic").
const MATERIAL_ABOUT: &[&str] = &["about", "on", "of", "regarding", "concerning", "to do with", "re"];
/// Verbs of finding documents, which with a topic after them ([`FOUND_ABOUT`]) ask for a search.
const FINDING: &[&str] = &["find", "locate", "identify", "retrieve", "track", "hunt", "unearth"];
/// The words that lead from what is found into its topic.
const FOUND_ABOUT: &[&str] = &[
    "about",
    "regarding",
    "concerning",
    "to do with",
    "in respect of",
    "which concern",
    "that concern",
    "which concerns",
    "that concerns",
    "relating to",
    "pertaining to",
    "on the subject of",
];
/// Words before a topic that are not its own.
const DETERMINERS: &[&str] = &["the", "a", "an", "my", "your", "our", "some"];
/// Words after a marker that point back at something, not at a topic.
const PRONOUNS: &[&str] = &["it", "them", "that", "this", "those", "these", "me", "you", "purpose"];

/// Words between the question's opening and the folder's name ("what's in the Clients folder").
const BETWEEN: &[&str] = &["the", "my", "our", "your", "this", "that"];

/// How the question "what does this folder hold" opens, as [`plain`] writes the words.
const WHATS_IN: &[&str] = &[
    "what's in",
    "whats in",
    "what is in",
    "what's inside",
    "whats inside",
    "what is inside",
    "contents of",
    // "tell me what's actually in Podcasts" (a fifty-fourth author).
    "what's actually in",
    "whats actually in",
    "what is actually in",
];

/// The tools among `cued` whose cues the reading holds twice over: two different phrases of the
/// tool's own, apart ("write up cover letter.zip as candidates for quarantine so I can review
/// them first" — the list's "candidates for" and "review them first"). A person who asks for one
/// thing in two ways leaves less doubt than one word does, and [`weigh`] lifts such a tool once
/// more: the model had ranked a context bundle 0.91 and the list 0.04 for that sentence.
pub fn said_twice<'t>(
    reading: &Reading,
    mentions: &[Mention],
    is_name: &dyn Fn(&str) -> bool,
    cued: &[&'t str],
) -> Vec<&'t str> {
    let said = Said::new(reading, mentions, is_name);
    let placed = places(&said.words, mentions);
    cued.iter()
        .copied()
        .filter(|tool| {
            let spans: Vec<(usize, usize)> = CUES
                .iter()
                .filter(|(t, _)| t == tool)
                .flat_map(|(_, phrases)| phrases.iter().filter_map(|p| said.span(p)))
                .collect();
            spans.iter().any(|a| spans.iter().any(|b| a.1 <= b.0))
                || (*tool == LIST && the_act_said(&said, placed) && (to_review(&said) || asks_for_a_list(&said)))
                // "make sure X is still valid in the libary" (a fiftieth author): the check's
                // words and the index named in words of its own (the model ranked reading the
                // file 0.72 and the check 0.08 with it lifted once).
                || (*tool == VALIDATE && index_named(&said))
        })
        .collect()
}

/// The quarantine list, which [`said_twice`] also counts as asked for twice when the act's own
/// words come with the list's words for looking it over: "junk, list them up for setting aside
/// so I can review first" and "leftovers; before I get rid of anything I'd like a list with
/// their sizes and hashes" ask for the act's list, which the model ranked below a search (0.55)
/// and a context bundle (0.41). So do the act's words with a list asked for ([`asks_for_a_list`]:
/// "a list of files to put apart … just the list"). Not "quarantine list" or "drafted":
/// "quarantine the drafted list" carries one out.
const LIST: &str = "propose.quarantine";
const TO_REVIEW: &[&str] = &[
    "sizes and hashes",
    "review first",
    "review them first",
    "review it first",
    "candidates for",
    "for review",
    "for my review",
    "quarantine review",
    "look it over",
    "look them over",
    "check it first",
    "check them first",
    "go over",
    "for me to check",
    "at my leisure",
    "inspect before",
    "inspect it first",
    "inspect them first",
    "sign-off",
    "sign off",
];

/// Whether the words ask to look the list over before anything is done ([`TO_REVIEW`]).
fn to_review(said: &Said) -> bool {
    TO_REVIEW.iter().any(|p| said.has(p))
}

/// The tools that act on what a proposal only describes: not cued when the act is said as not
/// to be done yet, even by their own words ("mark it for quarantine but don't actually move it").
const ACTING: &[&str] = &["fs.quarantine", "apply.move", "apply.patch", "quarantine.purge", "fs.compact"];

/// Whether a search's topic holds a word the person's documents hold (`holds`: the library
/// index): evidence for a search that no cue word gives ("find docs about beekeeping" ranked
/// the stale-documents report 0.82 and the search 0.16). Only words of four letters or more
/// that are not function words count: every document holds "the". A topic that holds another
/// tool's cue is what the person asked to be done, not what about: "list them up for setting
/// aside, so I can review first" is no search for "setting aside so I can review first".
pub fn topic_is_indexed(query: &str, holds: &dyn Fn(&str) -> bool) -> bool {
    let others_cued = cued(&super::reading::read(query), &[], &|_| false).iter().any(|t| *t != "rag.search");
    !others_cued
        && query.split_whitespace().map(plain).any(|w| {
            w.chars().count() >= 4
                && w.chars().all(char::is_alphabetic)
                && !TOPIC_STOP_WORDS.contains(&w.as_str())
                && holds(&w)
        })
}

/// Words too common in documents to say anything about a search.
const TOPIC_STOP_WORDS: &[&str] = &[
    // "… set down on a list for my review" (authors' dev): a list is asked for, not searched.
    "list",
    "lists",
    "about",
    "file",
    "files",
    "document",
    "documents",
    "docs",
    "notes",
    "note",
    "that",
    "this",
    "with",
    "from",
    "have",
    "what",
    "where",
    "which",
    "there",
    "their",
    "them",
    "they",
    "some",
    "anything",
    "something",
    "stuff",
    "things",
    "written",
    "wrote",
    "write",
    "mention",
    "mentions",
    "talk",
    "talks",
    "folder",
    "folders",
];

/// Verbs that, said as what not to do ("mark it for quarantine but don't actually move it"),
/// ask for a proposal instead of the act.
const NOT_YET_VERBS: &[&str] = &["move", "apply", "delete", "quarantine", "change", "touch", "execute", "run", "do"];

/// The tools that only write a proposal (nothing changes until it is applied).
const PROPOSING: &[&str] = &["propose.patch", "propose.move", "propose.quarantine", "propose.redirects"];

/// `ranking` with each cued tool `boost` times likelier for each time it is in `cued` (a tool
/// [`said_twice`] is in it twice), normalised again and sorted best first (ties by name, as the
/// ranking itself); the model's chance of a call to its best tool is kept as it was. Unchanged
/// when nothing is cued or `boost` is 1.
pub fn weigh(ranking: &Ranking, cued: &[&str], boost: f32) -> Ranking {
    let lift = boost.max(1.0).ln();
    if cued.is_empty() || lift == 0.0 {
        return ranking.clone();
    }
    let times = |tool: &str| cued.iter().filter(|c| **c == tool).count() as f32;
    let mut tools: Vec<(String, f32)> = ranking.tools.iter().map(|(t, lp)| (t.clone(), lp + lift * times(t))).collect();
    if !tools.iter().map(|(_, s)| *s).fold(f32::NEG_INFINITY, f32::max).is_finite() {
        return ranking.clone();
    }
    super::rank::normalise(&mut tools);
    Ranking { tools, p_call: ranking.p_call, best_call: ranking.best_call }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::understand::vocab::{Entry, EntryKind, Vocabulary};
    use crate::understand::{mentions, read};

    fn ranking(pairs: &[(&str, f32)]) -> Ranking {
        let best_call = 0.9 * pairs.first().map_or(0.0, |(_, p)| *p);
        Ranking { tools: pairs.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(), p_call: 0.9, best_call }
    }

    fn probs(r: &Ranking) -> Vec<(String, f32)> {
        r.tools.iter().map(|(t, lp)| (t.clone(), (lp.exp() * 1000.0).round() / 1000.0)).collect()
    }

    fn no_names(_: &str) -> bool {
        false
    }

    fn cued_in(s: &str) -> Vec<&'static str> {
        cued(&read(s), &[], &no_names)
    }

    /// [`cued`] with the names of `v` found in `s`.
    fn cued_among(v: &Vocabulary, s: &str) -> Vec<&'static str> {
        let r = read(s);
        cued(&r, &mentions::find(&r, v), &no_names)
    }

    #[test]
    fn every_cued_tool_is_a_registry_tool_listed_once_with_plain_lower_case_cues() {
        let mut seen = std::collections::BTreeSet::new();
        for (tool, phrases) in CUES {
            assert!(super::super::rank::USES.iter().any(|(t, _)| t == tool), "{tool} is not a tool");
            assert!(seen.insert(*tool), "{tool} listed twice");
            for p in *phrases {
                assert_eq!(p.to_lowercase(), *p, "{p}");
                assert!(!p.contains("  ") && !p.starts_with(' ') && !p.ends_with(' '), "{p:?}");
                assert!(!p.trim_end_matches('*').contains('*'), "{p}: a stem's star ends it");
            }
        }
        // The one tool whose work cannot be undone is cued by its own word only.
        assert_eq!(CUES.iter().find(|(t, _)| *t == "quarantine.purge").map(|(_, p)| *p), Some(&["purge"][..]));
    }

    #[test]
    fn an_act_said_as_what_not_to_do_cues_the_tools_that_only_propose() {
        assert_eq!(cued_in("okay so mark itinerary.txt for quarantine but don't actually move it"), PROPOSING.to_vec());
        assert_eq!(cued_in("swap cedar for granite in notes.txt, don't apply it yet"), PROPOSING.to_vec());
        assert!(cued_in("move notes.txt into Recipes").is_empty());
        // Not "yet" or "actually": a warning, no cue.
        assert!(cued_in("do not move or delete Photos").is_empty());
        // What broke (a thirty-fourth author): doing nothing is no act, however soon.
        assert!(cued_in("don't do anything with Photos yet, I need to sync with finance first").is_empty());
    }

    #[test]
    fn a_quarantine_review_is_the_lists() {
        // What broke (a thirty-fourth author, and authors-dev:145): the act itself.
        let r = read("flag checklist.zip for quarantine review and include the hash");
        let c = cued(&r, &[], &no_names);
        assert!(c.contains(&"propose.quarantine"), "{c:?}");
        assert!(said_twice(&r, &[], &no_names, &c).contains(&"propose.quarantine"));
    }

    #[test]
    fn a_files_kind_and_size_is_the_listings() {
        // What broke (a thirty-fourth author): the hash, 0.98; and a thirtieth's "sort of file".
        assert_eq!(cued_in("what's the footprint on agenda.jpg? just need the kind and size"), ["fs.scan"]);
        assert_eq!(cued_in("just its size and what sort of file it is, nothing more"), ["fs.scan"]);
        assert!(cued_in("what kind of day has it been").is_empty());
    }

    #[test]
    fn a_draft_with_a_place_named_is_the_moves() {
        let vocab = crate::understand::vocab::under_r(&[
            ("Garden Plans", crate::understand::vocab::EntryKind::Dir),
            ("contacts.docx", crate::understand::vocab::EntryKind::File),
        ]);
        let in_tree = |s: &str| cued_among(&vocab, s);
        // What broke (a thirty-fourth author): the quarantine list, cued by "draft", ranked 0.76.
        assert_eq!(
            in_tree("park contacts.docx in Garden Plans, it's cluttering the top level - just draft the plan"),
            ["propose.move"]
        );
        // The list asked for in words of its own stays.
        assert!(
            in_tree("park contacts.docx in Garden Plans, or draft it as a candidate for review")
                .contains(&"propose.quarantine")
        );
    }

    #[test]
    fn a_records_content_cues_nothing() {
        // What broke (authors-dev): "status" in the record made it the status report.
        assert_eq!(cued_in("save a record: project status = quokka"), vec!["db.upsert"]);
        assert_eq!(cued_in("remember that the duplicate keys are in the drawer"), vec!["db.upsert"]);
        // A cue before the record's words still counts.
        assert_eq!(cued_in("search for the lease, and remember that"), vec!["rag.search", "db.upsert"]);
    }

    #[test]
    fn everyday_words_for_discarding_and_reviewing_are_cues() {
        // What broke (authors-dev): read the file; drafted a context bundle; applied the old plan.
        assert!(cued_in("um just bin the lease agreement for now, I can restore it later").contains(&"fs.quarantine"));
        // What broke (spoken): "blake3" heard as two words was no word for hashing.
        for heard in ["Blake free on shopping list.docx.", "I need the Blake 3 of journal.png", "blake three of it"] {
            assert_eq!(cued_in(heard), vec!["fs.hash"], "{heard}");
        }
        assert!(
            cued_in("write up the cover letter as candidates for quarantine so I can review them first")
                .contains(&"propose.quarantine")
        );
        assert_eq!(cued_in("I'd like the journal filed away, can you set up the move"), vec!["propose.move"]);
        // What broke (an eleventh author): a patch of the new file.
        assert_eq!(cued_in("links to the old report should point at the new one now"), vec!["propose.redirects"]);
    }

    #[test]
    fn what_takes_up_space_is_a_listing() {
        // What broke (authors-dev): ranked the duplicates first.
        assert_eq!(cued_in("I wonder what's taking up all the space in Wallpapers/old"), vec!["fs.scan"]);
        assert_eq!(cued_in("how big is everything in Photos"), vec!["fs.scan"]);
    }

    #[test]
    fn a_topic_the_documents_hold_is_evidence_for_a_search() {
        let holds = |w: &str| matches!(w, "beekeeping" | "notes" | "the" | "bee");
        assert!(topic_is_indexed("beekeeping", &holds));
        assert!(topic_is_indexed("Beekeeping, mostly", &holds));
        // Common words, short words and words no document holds are no evidence.
        assert!(!topic_is_indexed("the notes", &holds));
        assert!(!topic_is_indexed("bee", &holds));
        assert!(!topic_is_indexed("glaciers", &holds));
        // What broke (authors-dev): a quarantine list's words after "for" read as a topic.
        assert!(!topic_is_indexed("beekeeping set aside so I can review first", &holds));
    }

    #[test]
    fn the_purge_is_left_out_unless_its_own_words_are_said() {
        let unsaid_in = |s: &str| unsaid(&read(s), &[], &no_names, &cued(&read(s), &[], &no_names));
        // What broke: "throw away the index and regenerate the whole thing" purged a batch.
        let purge_unsaid = |s: &str| unsaid_in(s).contains(&"quarantine.purge");
        assert!(purge_unsaid("okay so throw away the index and regenerate the whole thing"));
        assert!(purge_unsaid("bin changelog.pdf for now, I can restore it later"));
        for said in [
            "purge the last batch",
            "delete the quarantined files forever",
            "wipe it out permanently",
            "empty the quarantine",
            // whisper's "empty, quarantine."
            "empty, quarantine.",
            "clear out the quarantine for good",
            // What broke (a twenty-ninth author's): a quarantine of the batch, and a question.
            "delete for always the batch 889db2693820fcf6",
            "the batch I put in quarantine earlier, I don't need it more, erase it permanent",
        ] {
            assert!(!purge_unsaid(said), "{said}");
        }
        assert!(purge_unsaid("don't purge anything"));
        let r = ranking(&[("quarantine.purge", 0.96), ("rebuild.index", 0.02), ("fs.quarantine", 0.02)]);
        let w = without(&r, &["quarantine.purge"]);
        assert_eq!(probs(&w), vec![("fs.quarantine".to_string(), 0.5), ("rebuild.index".to_string(), 0.5)]);
        assert_eq!(probs(&without(&r, &["apply.move"])), probs(&r));
        // "delete the empty folders" is no permission; nor is a batch's name alone.
        assert!(purge_unsaid("delete the empty folders"));
        // What broke (a tenth author's sentences): a quarantine asked for as an act drafted a list.
        let list_unsaid = |s: &str| unsaid_in(s).contains(&"propose.quarantine");
        assert!(list_unsaid("Please take floor plan.csv out of the way, put it in the quarantine."));
        assert!(list_unsaid("quarantine notes.txt"));
        // The act said as not to be done yet cues the list, and a cued tool is never left out.
        assert!(!list_unsaid("quarantine notes.txt but don't actually move it"));
        // The hash the index check compares is no hash asked for (a fiftieth author).
        assert!(
            unsaid_in("can u make sure todo.md is still valid in the library, the hash i mean").contains(&"fs.hash")
        );
        assert!(!unsaid_in("what is the hash of todo.md").contains(&"fs.hash"));
        assert!(!unsaid_in("is todo.md still valid in the index, and what's its hash").contains(&"fs.hash"));
        for said in [
            "draft a quarantine list with a.txt and b.txt",
            "I want to put x.png away, but first show me what it would take",
            "mark notes.txt for quarantine",
            "propose quarantining notes.txt",
            "write up Scans as something to quarantine so I can look it over",
        ] {
            assert!(!list_unsaid(said), "{said}");
        }
        // The purge alone, left out: nothing is left to call.
        let only = ranking(&[("quarantine.purge", 1.0)]);
        assert!(without(&only, &["quarantine.purge"]).tools.is_empty());
    }

    #[test]
    fn a_cue_word_is_found_as_a_word_or_a_stem_and_a_phrase_only_whole() {
        assert_eq!(cued_in("remember that the gate code is 1990"), vec!["db.upsert"]);
        // What broke: a search said after "trying to remember" was read as a record's content.
        assert_eq!(
            cued_in("I'm trying to remember where I wrote about telescopes, search for that"),
            vec!["rag.search"]
        );
        assert!(cued_in("I can't remember what's in there").is_empty());
        // What broke (a twenty-second author's): a note for "I cannot for the life of me remember".
        assert!(cued_in("who wrote it? I cannot for the life of me remember whether it was I").is_empty());
        assert_eq!(cued_in("don't move it, just remember that the code is 1234"), vec!["db.upsert"]);
        assert_eq!(cued_in("I want you to remember that the gate code is 1990"), vec!["db.upsert"]);
        // What broke (a nineteenth author's): "be so kind as to remember" was the person's memory.
        assert_eq!(
            cued_in(
                "Would you be so kind as to remember that I prefer large writing? Put it in preferences under font"
            ),
            vec!["db.upsert"]
        );
        assert_eq!(cued_in("are there duplicated photos here"), vec!["cluster.duplicates"]);
        // What broke (a fifth author's sentences): a record, an encoding, where a file belongs.
        assert_eq!(cued_in("save a record: the gate code = 1990"), vec!["db.upsert"]);
        assert_eq!(cued_in("What encoding is notes.txt in?"), vec!["fs.read"]);
        assert_eq!(cued_in("Do I have anything written up on telescopes?"), vec!["rag.search"]);
        assert_eq!(cued_in("budget.xlsx belongs in Taxes, sort that out"), vec!["propose.move"]);
        // What broke (a tenth author's sentences): ranked a bundle of the two files 0.81.
        assert_eq!(
            cued_in("I want that agenda.zip and guest_list.pdf both go into vacation photos, make the plan"),
            vec!["propose.move"]
        );
        assert!(cued_in("record that Scans/old.pdf moved to todo.xlsx").is_empty());
        assert_eq!(cued_in("links to it are broken now, set up the forwarding"), vec!["propose.redirects"]);
        assert_eq!(cued_in("set aside the old drafts folder"), vec!["fs.quarantine"]);
        // What broke (author g): a list asked for by what it holds, and to review first.
        assert_eq!(
            cued_in("a list of them with their sizes and hashes that I can look at"),
            vec!["propose.quarantine"]
        );
        assert_eq!(
            cued_in("list them up for setting aside so I can review first"),
            vec!["propose.quarantine", "fs.quarantine"]
        );
        assert_eq!(
            cued_in("the thing that used to be at old.pdf is now new.pdf, make the old-to-new mapping"),
            vec!["propose.redirects"]
        );
        // What broke (a twenty-first author's): "used to be" with no "at", "old to new" unhyphenated.
        assert_eq!(
            cued_in("that file used to be old.pdf but now its new.pdf, do the old to new map thing"),
            vec!["propose.redirects"]
        );
        // The list is lifted by its own words; "quarantine" alone lifts the act.
        assert_eq!(cued_in("get old.pdf out of the way, put it in quarantine"), vec!["fs.quarantine"]);
        // "a … list" drafts one: the act's word is no longer lifted beside it.
        assert_eq!(cued_in("draft a quarantine list with old.pdf"), vec!["propose.quarantine"]);
        assert_eq!(cued_in("Which drafts are out of date?"), vec!["infer.superseded_docs"]);
        // What broke (spoken): "find files in Podcasts that have a new version" and "look for
        // older copies of reports" ranked the duplicates first.
        assert_eq!(cued_in("Find files in Podcasts have a new version."), vec!["infer.superseded_docs"]);
        assert_eq!(cued_in("older copies of reports in misc"), vec!["infer.superseded_docs"]);
        assert_eq!(cued_in("What\u{2019}s the context?"), vec!["orbit.get_context"]);
        // "out" and "date" apart are not the phrase; "hashtag" is not "hash".
        assert!(cued_in("take the date out").is_empty());
        assert!(cued_in("hashtag ideas").is_empty());
        // Two tools' cues in one sentence: both, in table order.
        assert_eq!(
            cued_in("find the duplicates in Photos and delete them"),
            vec!["cluster.duplicates", "fs.quarantine"]
        );
        // Words that go with more than one tool are no tool's cue.
        assert!(cued_in("carry out the move plan").is_empty());
        assert!(cued_in("remove the word colour from notes.txt").is_empty());
        assert!(cued_in("throw the quarantined things out permanently, for good").is_empty());
    }

    #[test]
    fn a_cue_said_as_what_not_to_do_is_none_within_its_clause() {
        assert_eq!(
            cued_in("draft what to quarantine but don't delete it yet"),
            vec!["propose.quarantine", "propose.patch", "propose.move", "propose.redirects"]
        );
        assert!(cued_in("do not move or delete Photos").is_empty());
        assert!(cued_in("never ever delete Photos").is_empty());
        // The negation's reach ends with its clause.
        assert_eq!(cued_in("don't ask, just delete it"), vec!["fs.quarantine"]);
        // And with its reach: three words.
        assert_eq!(cued_in("don't you think we should delete it"), vec!["fs.quarantine"]);
    }

    fn dir(abs: &str, rel: &str) -> Entry {
        Entry { abs: abs.into(), rel: rel.into(), kind: EntryKind::Dir }
    }

    /// A file under `/h`.
    fn file(rel: &str) -> Entry {
        Entry { abs: format!("/h/{rel}"), rel: rel.into(), kind: EntryKind::File }
    }

    #[test]
    fn words_that_name_a_file_or_folder_are_not_cues() {
        // A word inside a path is not a word of the sentence.
        assert!(cued_in("read Backups/remember.txt").is_empty());
        // A mention's words are skipped: "Zip Codes" is a folder here, found by the mentions.
        let v = Vocabulary::new(vec![dir("/h", ""), dir("/h/Zip Codes", "Zip Codes"), dir("/h/Archive", "Archive")]);
        let r = read("list the Zip Codes folder");
        assert_eq!(cued(&r, &[], &no_names), vec!["fs.compact"]);
        let found = mentions::find(&r, &v);
        assert!(!found.is_empty(), "the folder is a mention");
        assert!(cued(&r, &found, &no_names).is_empty());
        // A cue that is itself the name of something that exists is that name.
        let is_name = |w: &str| !v.lookup(w).is_empty();
        assert!(is_name("zip codes") && !is_name("zip"));
        let r = read("what is in zip");
        assert_eq!(cued(&r, &[], &is_name), vec!["fs.compact"]);
        assert!(cued(&r, &[], &|w: &str| w == "zip").is_empty());
    }

    #[test]
    fn looking_something_up_cues_a_search() {
        // What broke (a fifteenth author): "look up pottery but only in letters folder" ranked
        // the duplicates first, the search lifted once by its topic only.
        assert_eq!(cued_in("look up pottery but only in letters folder"), vec!["rag.search"]);
        assert_eq!(cued_in("look for telescope, markdown files only"), vec!["rag.search"]);
        assert!(cued_in("look at the plan").is_empty());
        // What broke (a thirty-eighth author): the duplicates, the status report, a question.
        for (said, tool) in [
            ("Chart the old revisions in there, the ones a newer copy has replaced.", "infer.superseded_docs"),
            ("Log it: the boat's mooring number is B17.", "db.upsert"),
            ("Log entry under bilge: pump was serviced on the 12th.", "db.upsert"),
            ("Write up the lot for the brig. I'll inspect before we lock it away.", "propose.quarantine"),
        ] {
            assert!(cued_in(said).contains(&tool), "{said}: {:?}", cued_in(said));
        }
        // What broke (authors' dev): the status report, and old versions of documents.
        let index_right = cued_in("the document todo.md, the index is still correct about it or no?");
        assert!(index_right.contains(&"rag.validate_applicability"), "{index_right:?}");
        let outdated = cued_in("check if the index is outdated for todo.md");
        assert!(outdated.contains(&"rag.validate_applicability"), "{outdated:?}");
    }

    #[test]
    fn a_forty_and_forty_second_authors_words_cue_their_tools() {
        // What broke (a fortieth author): a read, no call, a note of what was to be checked.
        for (said, tool) in [
            ("get contacts.docx outta here rn", "fs.quarantine"),
            ("ugh its all stale then, just make the library thing fresh again", "rebuild.index"),
            ("keep track that contacts.docx is my final essay not the draft ok", "db.upsert"),
            ("check if what u remember for wishlist.md is still legit", "rag.validate_applicability"),
            // A forty-second author.
            (
                "does the indexed version of resume.csv still correspond to its present content hash?",
                "rag.validate_applicability",
            ),
            ("I wish to peruse manual.md; reproduce the text thereof", "fs.read"),
            ("Please draft a patch for warranty.md: strike walnut and insert thursday.", "propose.patch"),
            ("kindly propose that correction for my approval", "propose.patch"),
            ("prepare the redline but hold off on executing it", "propose.patch"),
            ("Please draft, but on no account execute, the transfer of agenda.jpg to payslips.", "propose.move"),
            ("kindly list it for quarantine pending the partner's sign-off", "propose.quarantine"),
            // A forty-fourth author, Scots spelled out.
            ("which folders are you let into? my daughter set you up", "orbit.get_context"),
            ("does your index know that or is it still thinking of the old one", "rag.validate_applicability"),
            ("the documents about mosaic, which ones are the best match", "rag.search"),
            // A forty-sixth author.
            ("sorry before i ask anything — what can you actually see and do at the moment", "orbit.get_context"),
            ("check misc for files that are exactly the same, don't delete anything yet", "cluster.duplicates"),
            (
                "ok take todo.md and changelog.docx out of those results and stick them into one thing i can paste",
                "rag.assemble_context",
            ),
            // A forty-eighth author, Pidgin spelled out.
            ("please check whether the index still remember birthday.md correct", "rag.validate_applicability"),
            ("the library still know them as them be now? confirm it", "rag.validate_applicability"),
            // A fifty-fourth author.
            ("Would you mind terribly remembering that the boiler man is called Trevor?", "db.upsert"),
            (
                "confirm that todo.md and notes.md are still what the library thinks they are",
                "rag.validate_applicability",
            ),
            ("Could you sketch out the move for me to look over?", "propose.move"),
            ("one might perhaps take a peek at what todo.md actually says", "fs.read"),
            // A fiftieth author: the hash is what the index check compares.
            ("can u make sure todo.md is still valid in the library, the hash i mean", "rag.validate_applicability"),
            ("make plan to shift guest_list.zip to Payslips, don't move it yet", "propose.move"),
            (
                "I want contacts.docx and agenda.jpg both to be inside Garden Plans, write the moving plan",
                "propose.move",
            ),
        ] {
            assert!(cued_in(said).contains(&tool), "{said}: {:?}", cued_in(said));
        }
        assert!(
            !cued_in("can u make sure todo.md is still valid in the library, the hash i mean").contains(&"fs.hash")
        );
        assert!(cued_in("is todo.md still valid, and what is its hash").contains(&"fs.hash"));
        // What is already kept, asked about, is no new record; drafting a patch or a move is no list.
        assert!(!cued_in("check if what u remember for wishlist.md is still legit").contains(&"db.upsert"));
        assert!(!cued_in("what do you remember about the boiler").contains(&"db.upsert"));
        // What broke (a forty-eighth author): a note of a thing the person remembers.
        assert!(!cued_in("quote.png is my old price list, I still remember it").contains(&"db.upsert"));
        assert!(!cued_in("check whether the index still remember birthday.md").contains(&"db.upsert"));
        assert!(cued_in("please remember that my locker code is 4492").contains(&"db.upsert"));
        assert!(
            !cued_in("Please draft a patch for warranty.md: strike walnut and insert thursday.")
                .contains(&"propose.quarantine")
        );
        assert!(cued_in("draft a list of the files to quarantine").contains(&"propose.quarantine"));
        assert!(!cued_in("draft a list of things to move").contains(&"propose.move"));
        assert!(!cued_in("don't draft a patch").contains(&"propose.patch"));
        assert!(!cued_in("make sure the plan is right, then apply it").contains(&"propose.move"));
        assert!(!cued_in("write down that the move is on friday").contains(&"propose.move"));
        assert!(!cued_in("looks good make the edit for real").contains(&"propose.patch"));
        assert!(cued_in("looks good make a fix").contains(&"propose.patch"));
        // What broke (authors' dev, after last stop's "make"): the drafted edit, pointed at.
        assert!(!cued_in("Admirable. Pray make the correction.").contains(&"propose.patch"));
        // A batch is in the quarantine already: setting it aside again is no request, and with
        // the purge's own words it is the purge (authors' dev: "I've changed my mind about
        // keeping them; delete that batch for good" was taken back once the quarantine's
        // "delete" no longer counted).
        let purged = cued_in("get rid of quarantine batch a5d085d9d4a454cb for good");
        assert_eq!(purged, vec!["quarantine.purge"]);
        assert!(cued_in("restore batch a5d085d9d4a454cb").is_empty());
        let nuked = cued_in("okay so that quarantine batch a5d085d9d4a454cb nuke it i dont need any of it");
        assert_eq!(nuked, vec!["quarantine.purge"]);
        assert_eq!(cued_in("nuke agenda.jpg"), vec!["fs.quarantine"]);
        // What broke (a forty-second author): the search's shape said with a verb of finding.
        let written = |s: &str| asks_what_was_written(&read(s), &[]);
        assert!(written("locate all instruments in respect of beekeeping held within the permitted folders"));
        // A fifty-fourth author's: filed away.
        assert!(written("I rather think I filed some papers on volcano at one point. Might you hunt them out?"));
        assert!(!written("I filed it away"));
        assert!(written("identify those materials in Photos which concern volcano"));
        assert!(!written("find out about the weather tomorrow"));
        assert!(!written("find the duplicates in Photos"));
        // What broke (a fifty-sixth and a fifty-seventh author): the duplicates for a search.
        assert!(written("dig through Photos/old for stuff on mosaic"));
        assert!(written("Look in the library for information of mosaic but only in the folder Photos/old"));
        assert!(!written("is there stuff on it"));
    }

    #[test]
    fn asking_what_a_folder_holds_is_the_listing() {
        let v = Vocabulary::new(vec![dir("/h", ""), dir("/h/Clients", "Clients"), file("todo.md")]);
        let is_dir = |m: &Mention| m.sure().and_then(|i| v.entries.get(i)).is_some_and(|e| e.kind == EntryKind::Dir);
        let asks = |s: &str| {
            let r = read(s);
            asks_whats_in(&r, &mentions::find(&r, &v), &is_dir)
        };
        // What broke (authors' dev): the duplicates were looked for in both.
        assert!(asks("Could you tell me what's in the Clients file drawer please?"));
        assert!(asks("Clients contents?"));
        assert!(asks("um what is inside my clients folder"));
        assert!(asks("tell me what the Clients papers actually contain; I have lost track of them"));
        assert!(asks("what does Clients hold"));
        // What broke (a thirty-eighth author, authors' dev): the duplicates, old versions.
        assert!(asks("whats in the hold at clients"));
        // What broke (a forty-second author): a search for "doubt nothing therein is to be altered".
        assert!(asks(
            "Pursuant to my review of the file, please list the contents of Clients; for the avoidance of doubt, nothing therein is to be altered."
        ));
        assert!(asks("What is lurking inside the box called Clients?"));
        assert!(!asks("what's in the email from Clients"));
        assert!(!asks("what should Clients contain"));
        assert!(!asks("what todo.md contains"));
        // A file's contents are its text; a question about something else in the folder is not
        // the listing's shape; nor is the folder said far from the question.
        assert!(!asks("what's in todo.md"));
        assert!(!asks("the contents of todo.md"));
        assert!(!asks("what's stale in Clients"));
        assert!(!asks("what's in the old drafts I keep in Clients"));
    }

    #[test]
    fn an_it_pointing_back_is_still_a_word_of_the_cue_it_is_in() {
        let v = Vocabulary::new(vec![dir("/h", "")]);
        let cues_of = |s: &str| {
            let r = read(s);
            let found = mentions::find(&r, &v);
            assert!(found.iter().any(|m| m.kind == MentionKind::Back), "{s}: {found:?}");
            cued(&r, &found, &no_names)
        };
        // What broke (authors' dev): no cue at all, and the status report, for a fact to keep.
        assert_eq!(cues_of("Could you keep it in mind that my grandson's name is Thomas?"), vec!["db.upsert"]);
        assert!(cues_of("quarantine Recipes so I can look it over first").contains(&"propose.quarantine"));
    }

    #[test]
    fn saying_what_was_written_on_a_topic_is_the_shape_of_a_search() {
        let v = Vocabulary::new(vec![dir("/h", ""), dir("/h/Clients", "Clients"), file("todo.md")]);
        let asks = |s: &str| {
            let r = read(s);
            asks_what_was_written(&r, &mentions::find(&r, &v))
        };
        // What broke (authors' dev): the duplicates, a note, or no call.
        assert!(asks("I'm SURE I wrote something about photosynthesis for the newsletter... can you find it"));
        assert!(asks("I once wrote at length on kayak; would you consult the catalogue and see what turns up?"));
        assert!(asks("i wrote some code about saxophone somewhere idk where, only code files tho"));
        assert!(asks("is there something in the index about volcano? give me only the three best ones"));
        assert!(asks("Is there anything in the catalogue to do with beekeeping?"));
        // What broke (a thirtieth author): the duplicates of the folder named between.
        assert!(asks("Is there anything in the clients folder to do with harpsichord? Only look in that one"));
        assert!(asks("got something about kayaks in Clients?"));
        // What broke (a thirty-second author): "re" for "about".
        assert!(asks("pull up whatever we got re mosaic, best hits first"));
        // What broke (a thirty-sixth author): every clause opens on "i", and with no cue the
        // statement rule took it for telling; the search's shape is a cue before that rule.
        let said = "i know i wrote something up on mosaic a while back where did it go";
        assert!(asks(said));
        let r = read(said);
        assert!(!super::super::statement::tells(said, &mentions::find(&r, &v), &["rag.search"]));
        assert!(!asks("whatever you think is best"));
        assert!(!asks("is there anything in Clients on the desktop"));
        assert!(!asks("is there anything in Clients about it"));
        // Writing to be done is a note; a named file asks about its entry; no topic, no search.
        assert!(!asks("write a note about the boiler"));
        assert!(!asks("is the index still right about todo.md"));
        assert!(!asks("I wrote about it yesterday"));
        assert!(!asks("rebuild the index on Clients"));
        assert!(!asks("what's in the library"));
    }

    #[test]
    fn putting_a_named_thing_in_a_named_folder_cues_a_move() {
        let v = Vocabulary::new(vec![dir("/h", ""), dir("/h/Blueprints", "Blueprints"), file("playlist.json")]);
        let cues_of = |s: &str| cued_among(&v, s);
        // What broke (a fifteenth and a seventeenth author): a bundle, a note.
        assert_eq!(cues_of("stick playlist.json in blueprints"), vec!["propose.move"]);
        assert_eq!(cues_of("tidy playlist.json into Blueprints, it shouldn't be lying around"), vec!["propose.move"]);
        // What broke (a forty-fourth author): the duplicates.
        assert_eq!(cues_of("shift playlist.json into Blueprints, it's been lying about loose"), vec!["propose.move"]);
        // No verb of putting, or nowhere to put it: no cue.
        assert!(cues_of("read playlist.json in Blueprints").is_empty());
        assert!(cues_of("put playlist.json somewhere sensible").is_empty());
        assert!(cues_of("is playlist.json in Blueprints").is_empty());
        // What broke (a twenty-first author's): "chuck" threw the file away; with a place named
        // it puts, and only another word for the quarantine keeps that.
        assert_eq!(cues_of("chuck playlist.json into Blueprints they dont belong here"), vec!["propose.move"]);
        assert_eq!(cues_of("chuck playlist.json"), vec!["fs.quarantine"]);
        let both = cues_of("chuck playlist.json into Blueprints and quarantine it");
        assert!(both.contains(&"fs.quarantine") && both.contains(&"propose.move"), "{both:?}");
        // What broke (a twenty-ninth author's): the things named first, the verb after them,
        // asked which file was meant.
        assert_eq!(
            cues_of("Please, playlist.json, this one put inside of blueprints. Thank you."),
            vec!["propose.move"]
        );
        // Said with its subject, the verb tells where the thing is.
        assert!(cues_of("playlist.json, the one I put in Blueprints, hash it").iter().all(|t| *t != "propose.move"));
    }

    #[test]
    fn a_twenty_ninth_authors_words_are_cues() {
        // What broke: the status report, twice; no call; a quarantine beside the archive.
        assert_eq!(cued_in("please save that my locker code is bluebird"), vec!["db.upsert"]);
        assert_eq!(cued_in("write in the records that my badge number is 48213"), vec!["db.upsert"]);
        assert_eq!(cued_in("is possible to reconstruct all the library index? thank you"), vec!["rebuild.index"]);
        assert_eq!(
            cued_in("flyers is old things. make archive of it and put the originals in quarantine"),
            vec!["fs.compact"]
        );
        // A patch.
        assert_eq!(cued_in("change the name of quote.png to scratch.txt please"), vec!["propose.move"]);
        // "save that" alone keeps no record: a file may be saved.
        assert!(cued_in("save that file as a pdf").is_empty());
        // The quarantine itself, asked for with the originals of something else, stays.
        assert_eq!(cued_in("put the originals in quarantine"), vec!["fs.quarantine", "fs.compact"]);
    }

    #[test]
    fn a_thirtieth_authors_words_are_cues() {
        // What broke: a patch, the duplicates twice, a search, a context bundle, a search, a
        // listing, a quarantine.
        let has = |s: &str, tool: &str| cued_in(s).contains(&tool);
        assert!(has(
            "it ought to live in podcasts. Kindly prepare the arrangements for relocating it.",
            "propose.move"
        ));
        assert!(has("Would you draw up a plan for shifting them both there?", "propose.move"));
        assert!(has("I'd like clients boxed up and shrunk down", "fs.compact"));
        assert!(has("Kindly tidy quote.png away out of sight now", "fs.quarantine"));
        assert!(has("I cannot remember what I put in it. Show me the words inside, please.", "fs.read"));
        assert!(has("photos slash old I believe it is called. What have I got in there, if you please?", "fs.scan"));
        // The act said as not to be done yet, four words on: the list, not the act.
        let list = cued_in(
            "Prepare a list of things to set to one side: agenda.jpg and todo.md. Don't do the setting aside yet.",
        );
        assert!(list.contains(&"propose.quarantine") && !list.contains(&"fs.quarantine"), "{list:?}");
        // The purge's own words: destroying what a batch holds.
        let unsaid_in = |s: &str| unsaid(&read(s), &[], &no_names, &cued(&read(s), &[], &no_names));
        assert!(
            !unsaid_in("Those files sitting in the bin from yesterday's batch, destroy them altogether")
                .contains(&"quarantine.purge")
        );
    }

    #[test]
    fn a_list_said_as_not_wanted_leaves_the_act() {
        // What broke (a thirty-second author): "not just a list" drafted the list ("just" had
        // ended the negation's reach, as in "don't ask, just delete it").
        assert_eq!(cued_in("quarantine notes.txt now, not just a list"), vec!["fs.quarantine"]);
        assert_eq!(cued_in("quarantine notes.txt, not only a list"), vec!["fs.quarantine"]);
        assert_eq!(cued_in("just quarantine notes.txt into a list"), vec!["propose.quarantine"]);
        assert!(cued_in("don't ask, just delete notes.txt").contains(&"fs.quarantine"));
    }

    #[test]
    fn a_shell_command_typed_before_a_name_cues_its_tool() {
        let v = Vocabulary::new(vec![dir("/h", ""), dir("/h/Clients", "Clients"), file("todo.md")]);
        let cues_of = |s: &str| cued_among(&v, s);
        // What broke (a thirty-second author): "less todo.md" was a listing, "mv todo.md
        // Clients/" applying the move plan made before.
        assert_eq!(cues_of("less todo.md, top part is fine"), vec!["fs.read"]);
        assert!(cues_of("mv todo.md Clients/").contains(&"propose.move"));
        assert_eq!(cues_of("ls -la Clients"), vec!["fs.scan"]);
        // A lead-in the reading drops leaves the command first.
        assert_eq!(cues_of("ok. cat todo.md"), vec!["fs.read"]);
        // The same words elsewhere, or with no name after them, are ordinary words.
        assert!(cues_of("more like this one").is_empty());
        assert!(cues_of("less is more in Clients").is_empty());
        assert!(cues_of("show me the head of todo.md").is_empty());
        // The checksum programs are the hash's words wherever they are said.
        assert_eq!(cues_of("need the b3sum of todo.md asap"), vec!["fs.hash"]);
        assert_eq!(cues_of("b3sum todo.md"), vec!["fs.hash"]);
        assert_eq!(cues_of("sha of todo.md?"), vec!["fs.hash"]);
    }

    #[test]
    fn an_act_said_with_a_list_drafts_the_list() {
        // What broke (a twenty-first author's): "add … to a yeet list, ill review it tomorrow"
        // ranked a context bundle; "yeet" was no word for the quarantine either.
        assert_eq!(cued_in("yeet notes.txt right now"), vec!["fs.quarantine"]);
        assert_eq!(cued_in("alright add notes.txt to a yeet list ill review it tomorrow"), vec!["propose.quarantine"]);
        assert_eq!(cued_in("add notes.txt to a throw away list"), vec!["propose.quarantine"]);
        assert_eq!(cued_in("put notes.txt on a list to delete"), vec!["propose.quarantine"]);
        // The list already drafted is carried out by the act.
        assert_eq!(cued_in("delete everything on the list"), vec!["fs.quarantine"]);
        // What broke (authors' dev): where things set aside are kept, in everyday words, was no
        // word for the act at all ("pop contacts.docx into the holding pen" read the file).
        for said in [
            "pop notes.txt into the holding pen",
            "banish notes.txt to the limbo",
            "put notes.txt on the shelf of the condemned",
        ] {
            assert_eq!(cued_in(said), vec!["fs.quarantine"], "{said}");
        }
        // ... and with a list asked for, the list: "a roll of the doomed", "just the list".
        assert_eq!(cued_in("prepare a roll of the doomed: notes.txt"), vec!["propose.quarantine"]);
        assert!(
            cued_in("put notes.txt on the list for the holding pen, just the list").contains(&"propose.quarantine")
        );
        // The act with words for looking it over first asks for the list too.
        assert_eq!(
            cued_in("write up notes.txt as something to quarantine so I can look it over first"),
            vec!["fs.quarantine", "propose.quarantine"]
        );
        // The list made before, carried into the holding pen, is the act.
        assert_eq!(cued_in("shift the things on the list you made into the holding pen"), vec!["fs.quarantine"]);
    }

    #[test]
    fn a_cue_lifts_its_tool_and_the_ranking_stays_a_distribution() {
        let r = ranking(&[("orbit.get_context", 0.83), ("db.upsert", 0.12), ("rag.search", 0.05)]);
        let w = weigh(&r, &["db.upsert"], 8.0);
        assert_eq!(w.tools[0].0, "db.upsert");
        let total: f32 = w.tools.iter().map(|(_, lp)| lp.exp()).sum();
        assert!((total - 1.0).abs() < 1e-5, "{total}");
        // 0.12 × 8 against 0.83 and 0.05: 0.96 / 1.84.
        assert_eq!(probs(&w)[0], ("db.upsert".to_string(), 0.522));
        assert_eq!(probs(&w)[1], ("orbit.get_context".to_string(), 0.451));
        // Whether it is a call at all stays the model's.
        assert_eq!((w.p_call, w.best_call), (r.p_call, r.best_call));
    }

    #[test]
    fn a_clear_reading_is_not_overturned_and_no_cue_changes_nothing() {
        let r = ranking(&[("fs.scan", 0.95), ("fs.compact", 0.05)]);
        assert_eq!(weigh(&r, &["fs.compact"], BOOST).tools[0].0, "fs.scan");
        assert_eq!(weigh(&r, &[], BOOST), r);
        assert_eq!(weigh(&r, &["fs.compact"], 1.0), r);
        // A cue for a tool the scope does not show lifts nothing.
        assert_eq!(probs(&weigh(&r, &["quarantine.purge"], BOOST)), probs(&r));
    }

    #[test]
    fn a_tool_asked_for_in_two_ways_is_lifted_twice() {
        let twice = |s: &str| {
            let r = read(s);
            let c = cued(&r, &[], &no_names);
            said_twice(&r, &[], &no_names, &c)
        };
        // What broke (a thirteenth author): the context bundle, ranked 0.91 against the list's 0.04.
        assert_eq!(
            twice("write up the cover letter and the journal as candidates for quarantine so I can review them first"),
            vec!["propose.quarantine"]
        );
        // One phrase, or two that overlap, is one way of asking.
        assert!(twice("candidates for review").is_empty());
        // The index check's words with the index named (a fiftieth author).
        assert_eq!(twice("can u make sure todo.md is still valid in the library, the hash i mean"), vec![VALIDATE]);
        assert!(twice("is todo.md still valid").is_empty());
        assert!(twice("is the index stale").is_empty());
        assert_eq!(twice("draft a quarantine list"), vec!["propose.quarantine"]);
        assert!(twice("delete the duplicates").is_empty());
        // A tool not cued (an act said as not to be done yet) is not lifted either.
        assert!(twice("delete it and get rid of it, but don't actually move it yet").is_empty());
        // The act's words with a list asked for (what broke, authors-dev: the listing and a
        // search for "a list of files to put apart … just the list", a context bundle for "the
        // list for the holding pen … just the list").
        for said in [
            "i want a list of files to put apart: notes.txt. just the list, my boss must see it",
            "put notes.txt on the list for the holding pen, just the list, mind",
            "compile a list for the limbo containing Recipes, which I shall examine at my leisure",
            "I am minded to condemn notes.txt, but I should like it set down for my review",
        ] {
            assert_eq!(twice(said), vec!["propose.quarantine"], "{said}");
        }
        // The act alone, or the list alone, is asked for once.
        assert!(twice("pop notes.txt into the holding pen").is_empty());
        assert!(twice("i want a list of files in Recipes").is_empty());
        // The act's words with the list's words for looking it over (what broke, authors-dev: a
        // search, ranked 0.55, for "setting aside so I can review first").
        assert_eq!(
            twice("these are junk, list them up for setting aside so I can review first"),
            vec!["propose.quarantine"]
        );
        assert_eq!(
            twice("before I get rid of anything I'd like a list of them with their sizes and hashes"),
            vec!["propose.quarantine"]
        );
        assert_eq!(
            twice(&crate::understand::reading::spelled_out("can u prep quarantining old.json, sizes + hashes pls")),
            vec!["propose.quarantine"]
        );
        // What broke (a twenty-seventh author): a search for "something about mosaic … dig it
        // out" ranked below the stale-documents report of the folder named.
        assert_eq!(
            twice("somewhere in notes there ought to be something about mosaic; would you dig it out for me"),
            vec!["rag.search"]
        );
        // The list's own name with the act carries a list out: lifted once.
        assert!(!twice("delete everything on the quarantine list").contains(&"propose.quarantine"));
        assert!(twice("get rid of old.json, then hash the rest").is_empty());
        let r = ranking(&[("rag.assemble_context", 0.91), ("propose.quarantine", 0.04), ("fs.scan", 0.05)]);
        assert_eq!(weigh(&r, &["propose.quarantine"], BOOST).tools[0].0, "rag.assemble_context");
        assert_eq!(weigh(&r, &["propose.quarantine", "propose.quarantine"], BOOST).tools[0].0, "propose.quarantine");
    }

    #[test]
    fn cues_of_two_tools_leave_the_choice_between_them_to_the_model() {
        let r = ranking(&[("cluster.duplicates", 0.6), ("fs.quarantine", 0.3), ("orbit.get_context", 0.1)]);
        let w = weigh(&r, &["cluster.duplicates", "fs.quarantine"], BOOST);
        assert_eq!(w.tools[0].0, "cluster.duplicates");
        assert!(probs(&w)[2].1 < 0.05);
    }

    #[test]
    fn a_cue_does_not_make_a_sentence_the_model_reads_as_chat_a_call() {
        use crate::understand::{Filled, Thresholds, Understood, decide};
        // Tools alike and a call unlikely: the model's best call is 0.5 × 0.5.
        let mut r = ranking(&[("fs.quarantine", 0.5), ("fs.scan", 0.5)]);
        r.p_call = 0.1;
        r.best_call = 0.05;
        let w = weigh(&r, &["fs.quarantine"], BOOST);
        assert_eq!(w.tools[0].0, "fs.quarantine");
        assert!(w.p_call * w.tools[0].1.exp() < Thresholds::default().best_call, "the model's chance, not cued");
        let fill = |_: &str| Filled::Args(serde_json::json!({"paths": ["/h/a"]}));
        assert_eq!(decide(&w, &fill, true, "/h", &Thresholds::default()), Understood::NoCall);
        // The same at a call the model believes in is the call.
        let mut sure = w.clone();
        sure.best_call = 0.5;
        assert!(matches!(decide(&sure, &fill, true, "/h", &Thresholds::default()), Understood::Call { .. }));
    }
}
