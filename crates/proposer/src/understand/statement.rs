//! A sentence that tells instead of asks: "we have to move house next month and I'm already
//! dreading it", "my jeans need a patch on the knee", "I'm going to clean the kitchen now".
//!
//! A voice tool hears everything said near it, and a small model reads any sentence with a verb
//! in it as a command: those three were proposed as applying the last move plan, applying the
//! last patch and a status report, each with the chance of a call near 1.0 — no threshold on the
//! model's scores tells them from requests. What does tell them apart is the shape of the
//! sentence. A request is made with a verb first ("move it"), a question ("which of these…",
//! "…?"), or words that ask ("can you", "please", "I'd like", "let's"); a statement has a
//! subject before each of its verbs — I, we, my jeans, the kitchen, it — and none of those.
//!
//! The rule is narrow on purpose, because a request mistaken for chat is worse than the
//! opposite (the person has to say it again). A sentence is taken as telling only when
//! - every clause (split at punctuation and at "and", "but", "so", "then", "just"…) begins with
//!   a subject word ([`SUBJECTS`]) or a participle ("just popping out") once fillers and
//!   interjections are gone,
//! - nothing in it asks ([`ASKING`]), and no question mark,
//! - it names no file or folder, existing or new (a statement about a named folder — "Letters
//!   is where I keep the contracts" — is left to the rest of understanding, since "portfolio.md
//!   belongs in Letters" asks for a move) — unless it reports what was done at a time gone by
//!   ("I finished the translation in Letters yesterday"), whose clauses may open on the past
//!   verb itself ("finally cleaned up Wallpapers last night"),
//! - no tool is cued by its own words ("my hard disk is full of duplicates" is read as the
//!   request it is), no word of SMART's own work is said ([`ABOUT_THE_WORK`]: "the index
//!   needs rebuilding"), and nothing SMART prepared is pointed at ("the plan looks good" —
//!   but "my list of things to do" is the person's own).
//!
//! A sentence of acknowledgements only ("copy that, thanks", "got it") tells too, and so does
//! thinking aloud about the person's own choice ("I don't know if I want to clean up
//! Pictures/misc today") or about what a thing deserves ("i keep wondering if manual.md should
//! even exist"), and an act of the person's own that may come one day ("i might move agenda.jpg
//! into Garden Plans at some point"), whatever it names: what to do is still being decided, and
//! by the person.

use super::mentions::{Mention, MentionKind};
use super::reading::Reading;

/// Words a clause that tells begins with: pronouns, possessives, determiners, titles ("Mrs"),
/// "gotta" and "gonna" (whose subject goes unsaid), and negated auxiliaries (below).
pub const SUBJECTS: &[&str] = &[
    "i",
    "i'm",
    "im",
    "i've",
    "ive",
    "i'd",
    "i'll",
    "we",
    "we're",
    "we've",
    "we'll",
    "we'd",
    "my",
    "our",
    "it",
    "it's",
    "its",
    "this",
    "that",
    "that's",
    "thats",
    "there",
    "there's",
    "theres",
    "these",
    "those",
    "he",
    "she",
    "they",
    "he's",
    "she's",
    "they're",
    "his",
    "her",
    "their",
    "the",
    "mine",
    "everything",
    "nothing",
    "someone",
    "somebody",
    "everyone",
    "nobody",
    "gotta",
    "gonna",
    "mr",
    "mrs",
    "ms",
    "dr",
    "such",
    // A negated auxiliary opens a tag question ("…, isn't that lovely") or asks for nothing to
    // be done ("don't worry about it").
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "don't",
    "doesn't",
    "didn't",
    "won't",
];

/// Words and phrases that ask: politeness, a wish said to the assistant, a question put softly
/// (and [`NEEDING`]).
pub const ASKING: &[&str] = &[
    "please",
    "pls",
    "plz",
    "can you",
    "could you",
    "would you",
    "will you",
    "can u",
    "could u",
    "would u",
    "can i",
    "could i",
    "i want",
    "i wanna",
    "i'd like",
    "id like",
    "i would like",
    "i'd love",
    "i wonder",
    "i was wondering",
    "i was hoping",
    "i'm hoping",
    "let's",
    "lets",
    "let me",
    "go ahead",
    "help me",
    "tell me",
    "show me",
    "give me",
    "i'm looking for",
    "i am looking for",
    "i'm trying to",
    "i am trying to",
    "do it",
    "would be nice",
    "would be great",
    "would be lovely",
    "would be helpful",
    "would help",
    "i'd appreciate",
    "i would appreciate",
];

/// Verbs that carry out what was prepared, and what they point at: "ok that looks good apply
/// it" (a fiftieth author) runs two clauses together, the second opening on no subject.
const CARRY_OUT_VERBS: &[&str] = &["apply", "run", "execute", "carry"];
const POINTED_AT: &[&str] = &["it", "that", "this", "them", "those"];

/// Words before a verb of [`CARRY_OUT_VERBS`] that make it something said of someone, not said to
/// SMART ("I'll apply it myself", "we should run it later", "did you apply it").
const SAID_OF_SOMEONE: &[&str] = &[
    "i", "we", "you", "they", "he", "she", "i'll", "we'll", "you'll", "will", "would", "could", "should", "can",
    "might", "may", "must", "to", "not", "never", "didn't", "don't", "won't",
];

/// Whether `words` carry out what they point at in so many words ("apply it", "run that")
/// without a subject or an auxiliary before the verb.
fn carries_out_what_it_points_at(words: &[&str]) -> bool {
    (0..words.len().saturating_sub(1)).any(|i| {
        CARRY_OUT_VERBS.contains(&words[i])
            && POINTED_AT.contains(&words[i + 1])
            && (i == 0 || !SAID_OF_SOMEONE.contains(&words[i - 1]))
    })
}

/// "I need the hash of it" asks; "I need to move my car before 7" tells, as does "we need to".
const NEEDING: &[&str] = &["i need", "we need"];

/// What the person says of something SMART prepared: "the list looks right", "that plan is
/// fine". Only with a word that points at it ("my list of things to do" is the person's own).
const POINTERS: &[&str] = &["the", "that", "this", "your", "these", "those"];
const PREPARED: &[&str] = &["plan", "plans", "list", "batch", "proposal", "patch", "changes", "moves"];

/// Words about what SMART itself works on: a sentence saying them is about the work, whatever
/// its shape ("the index needs rebuilding", "the quarantine is getting big").
pub const ABOUT_THE_WORK: &[&str] = &[
    "index",
    "indexed",
    "reindex",
    "quarantine",
    "quarantined",
    "duplicates",
    "duplicate",
    "copies",
    "hash",
    "checksum",
    "redirect",
    "redirects",
    "stale",
    "outdated",
    "superseded",
    "status",
    "context",
    "lease",
    "stance",
    "tools",
];

/// Words that begin a new clause without punctuation.
const CLAUSE_WORDS: &[&str] = &["and", "but", "so", "then", "because", "just", "now", "anyway"];

/// Sounds and openings that come before a clause's subject; texting's asides ("ngl i shouldve
/// named contacts.docx something better"); and when, said before the subject ("tomorrow i might
/// move the old listings into Flyers but not yet", a fifty-second author).
const LEAD_INS: &[&str] = &[
    "um",
    "umm",
    "uh",
    "uhh",
    "uhm",
    "er",
    "erm",
    "hmm",
    "hm",
    "mm",
    "ah",
    "eh",
    "oh",
    "ok",
    "okay",
    "well",
    "yeah",
    "yes",
    "right",
    "actually",
    "honestly",
    "also",
    "alright",
    "hey",
    "wow",
    "ugh",
    "sigh",
    "maybe",
    "dear",
    "goodness",
    "gosh",
    "golly",
    "ooh",
    "oops",
    "whoops",
    "aw",
    "mind",
    "still",
    "phew",
    "whew",
    "ngl",
    "tbh",
    "fyi",
    "btw",
    "imo",
    "fwiw",
    "tomorrow",
    "tonight",
    "someday",
    "eventually",
];

/// Words that only acknowledge what was said ("copy that, thanks", "got it"): a sentence of
/// nothing else tells, whatever its first word. Not "yes", "go ahead" or "do it", which can
/// answer a question or approve.
const ACKNOWLEDGING: &[&[&str]] = &[
    &["copy", "that"],
    &["roger", "that"],
    &["roger"],
    &["got", "it"],
    &["gotcha"],
    &["thanks"],
    &["thank", "you"],
    &["thx"],
    &["cheers"],
    &["noted"],
    &["understood"],
    &["cool"],
    &["great"],
    &["nice"],
    &["perfect"],
    &["awesome"],
    &["lol"],
    &["haha"],
    &["good", "night"],
    &["goodnight"],
    // A denial with no verb of its own ("the folder Podcasts was created by my colleague, not
    // me") asks for nothing either.
    &["not", "me"],
    &["not", "mine"],
    &["not", "us"],
];

/// Whether `text` (the utterance as said, punctuation and all) tells something rather than
/// asks for it: see the module's rule. `mentions` are its reading's, `cued` the tools its own
/// words cue.
pub fn tells(text: &str, mentions: &[Mention], cued: &[&str]) -> bool {
    if deliberates(text) || tentative_own_act(text) || ponders(text) {
        return true;
    }
    if text.contains('?') {
        return false;
    }
    let lower = without_telling_tail(&text.to_lowercase().replace(['’', '‘'], "'"));
    let past = reports_the_past(&lower);
    // A report of what was done says the act's own words ("I already moved agenda.jpg into
    // Letters myself"); every clause opening on its subject or its past verb still decides.
    if !cued.is_empty() && !past {
        return false;
    }
    if !past && mentions.iter().any(|m| m.kind != MentionKind::Back) {
        return false;
    }
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.iter().any(|w| ABOUT_THE_WORK.contains(w)) {
        return false;
    }
    if only_acknowledges(&words) {
        return true;
    }
    let joined = format!(" {} ", words.join(" "));
    // "I wonder if I should keep …" is thinking aloud; "I wonder if you could …" asks.
    let asks = |a: &str| {
        let said = format!(" {a} ");
        joined.match_indices(&said).any(|(i, _)| {
            let rest = &joined[i + said.len()..];
            !(a == "i wonder" && ["if i ", "whether i ", "if we ", "whether we "].iter().any(|s| rest.starts_with(s)))
        })
    };
    if ASKING.iter().any(|a| asks(a))
        || carries_out_what_it_points_at(&words)
        || NEEDING.iter().any(|n| joined.contains(&format!(" {n} ")) && !joined.contains(&format!(" {n} to ")))
        || words.windows(2).any(|w| POINTERS.contains(&w[0]) && PREPARED.contains(&w[1]))
    {
        return false;
    }
    // Each clause's first word past the lead-ins; a clause of lead-ins only ("yes") says nothing.
    // A clause of thanks only ("…, thank you, so that's sorted") opens on no subject and asks
    // for nothing.
    let firsts: Vec<&str> = clauses(&lower)
        .iter()
        .filter(|clause| !only_acknowledges(clause))
        .filter_map(|clause| clause.iter().find(|w| !(LEAD_INS.contains(w) || past && ALREADY.contains(w))).copied())
        .collect();
    !firsts.is_empty() && firsts.iter().all(|w| SUBJECTS.contains(w) || participle(w) || (past && past_tense(w)))
}

/// Whether `text` says something of one named file or folder and asks nothing of it — "Clients
/// is such a mess lol", "quote.png is a letter my late husband wrote, I get quite sentimental
/// looking at it", "flyers slash misc is where I keep the old contracts from 2019", "ngl i
/// shouldve named contacts.docx something better" — which the model read as reading,
/// listing or searching the thing (authors' dev, and the largest family of wrong calls among
/// the authors only reported on).
///
/// The rule of [`tells`] with the named thing read as "it": every clause opens on a subject,
/// nothing asks, no cue, no word of SMART's work. Narrower still, because a name is what a
/// request is about:
/// - one thing named, no more ("agenda.jpg went into Flyers" may ask for a redirect);
/// - no question mark, and no word that asks a question inside a statement ("I've forgotten
///   what's in Podcasts" asks to see it), except "where" after "is" ("is where I keep …");
/// - no word of obligation or placing ([`WISHING`]: "Photos needs tidying", "portfolio.md
///   belongs in Letters", "we should clean up Photos"), though the regret of "should've" is no
///   wish;
/// - `cued` holds every cue, the shapes of a question included (`asks_whats_in`).
pub fn describes_a_named_thing(text: &str, reading: &Reading, mentions: &[Mention], cued: &[&str]) -> bool {
    if text.contains('?') || !cued.is_empty() {
        return false;
    }
    let named: Vec<&Mention> = mentions.iter().filter(|m| m.kind != MentionKind::Back).collect();
    let [thing] = named.as_slice() else {
        return false;
    };
    let lower: Vec<String> = reading.words.iter().map(|w| w.to_lowercase().replace(['’', '‘'], "'")).collect();
    let outside = |i: usize| i < thing.start || i >= thing.end;
    let wishes = lower.iter().enumerate().any(|(i, w)| outside(i) && WISHING.contains(&w.as_str()))
        || lower.windows(2).any(|w| matches!(w[0].as_str(), "has" | "have" | "got") && w[1] == "to");
    let questions = lower.iter().enumerate().any(|(i, w)| {
        outside(i)
            && (INDIRECT.contains(&w.as_str())
                || (w == "where" && (i == 0 || !matches!(lower[i - 1].as_str(), "is" | "was" | "it's" | "that's"))))
    });
    if wishes || questions {
        return false;
    }
    // A thing that opens its clause is that clause's subject only with a verb of being after
    // it ("Clients is such a mess", "the folder Podcasts was created by …"); otherwise it is the
    // topic of a request ("ok so clients slash raw slash wishlist dot m d swap the word tuesday
    // for orange").
    let mut open = thing.start;
    while open > 0
        && !reading.ends[open - 1]
        && !reading.pauses[open - 1]
        && (LEAD_INS.contains(&lower[open - 1].as_str()) || BEFORE_A_NAME.contains(&lower[open - 1].as_str()))
    {
        open -= 1;
    }
    let opens_its_clause = open == 0 || reading.ends[open - 1] || reading.pauses[open - 1];
    let being = lower.get(thing.end).is_some_and(|w| BEING.contains(&w.as_str()) || past_tense(w));
    if opens_its_clause && !being {
        return false;
    }
    // The sentence again, the thing said as "it", its sentence and clause ends marked.
    let mut again = String::new();
    for (i, w) in reading.words.iter().enumerate() {
        if i == thing.start {
            again.push_str(" it");
        } else if outside(i) {
            again.push(' ');
            again.push_str(w);
        }
        if i + 1 == thing.end || outside(i) {
            if reading.ends.get(i) == Some(&true) {
                again.push('.');
            } else if reading.pauses.get(i) == Some(&true) {
                again.push(',');
            }
        }
    }
    tells(again.trim(), &[], &[])
}

/// Words that may come before a name in its clause: "so the folder Podcasts …".
const BEFORE_A_NAME: &[&str] = &["so", "the", "my", "our", "this", "that", "folder", "file", "document", "doc"];

/// Verbs of being and seeming, after a thing that is a clause's subject.
const BEING: &[&str] = &[
    "is", "was", "are", "were", "isn't", "wasn't", "aren't", "weren't", "has", "had", "hasn't", "looks", "seems",
    "feels", "sounds",
];

/// Words that wish something done to what they are said of, or put it somewhere.
const WISHING: &[&str] =
    &["should", "must", "ought", "needs", "need", "belongs", "belong", "goes", "deserves", "wants", "want"];

/// Words that put a question inside a statement.
const INDIRECT: &[&str] = &["what", "what's", "whats", "which", "how", "why", "who", "whether", "if", "when"];

/// Whether `text` asks how to do something — "how do i write a for loop in bash again", "How do
/// I undo a commit I already pushed?", "how to make the writing bigger" — which asks SMART to
/// explain, not to act: the model proposed applying the last patch for the first (a
/// thirty-second author). Only when the sentence names no file or folder, cues no tool by its
/// own words and says nothing of SMART's own work ([`ABOUT_THE_WORK`]): "how do I see what's in
/// Photos" and "how do I find the duplicates" ask for the tool.
pub fn asks_how_to(text: &str, mentions: &[Mention], cued: &[&str]) -> bool {
    if !cued.is_empty() || mentions.iter().any(|m| m.kind != MentionKind::Back) {
        return false;
    }
    let lower = text.to_lowercase().replace(['’', '‘'], "'");
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| !w.is_empty())
        .collect();
    if words.iter().any(|w| ABOUT_THE_WORK.contains(w)) {
        return false;
    }
    let opening: Vec<&str> = words.iter().skip_while(|w| LEAD_INS.contains(w) || **w == "so").copied().collect();
    match opening.as_slice() {
        ["how", "to", ..] => true,
        ["how", aux, who, ..] => HOW_AUX.contains(aux) && HOW_WHO.contains(who),
        _ => false,
    }
}

/// The auxiliaries and subjects of a how-to question ("how do I…", "how can you…", "how
/// would one…").
const HOW_AUX: &[&str] = &["do", "does", "can", "could", "should", "would", "shall"];
const HOW_WHO: &[&str] = &["i", "you", "we", "one", "people"];

/// Times gone by: a sentence that places itself in one reports what was done ("I finished the
/// translation in Letters yesterday", "finally cleaned up Wallpapers last night and honestly it
/// feels great"). Such a sentence tells even when it names a folder or a file, and its clauses
/// may open on the past verb itself, the subject unsaid. So does one that says the thing is
/// done already, or was done by the person's own hand ("I already moved agenda.jpg into Garden
/// Plans myself, so there's nothing for you to do there").
const PAST_TIMES: &[&str] = &[
    " already ",
    " myself ",
    " ourselves ",
    " by hand ",
    " yesterday ",
    " last night ",
    " last week ",
    " last month ",
    " last year ",
    " this morning ",
    " earlier today ",
    " the other day ",
    " over the weekend ",
];

/// Adverbs before a past verb whose subject goes unsaid ("finally got it finished"), and the
/// times a report may open on before its subject ("yesterday I move quote.png to Flyers by
/// myself, nothing to do now", said by a twenty-ninth author in the present tense).
const ALREADY: &[&str] = &["finally", "already", "just", "only", "yesterday", "earlier", "recently"];

/// Past forms that do not end in "-ed".
const IRREGULAR_PAST: &[&str] = &[
    "got", "made", "put", "sent", "left", "did", "went", "came", "wrote", "took", "found", "had", "was", "were",
    "gave", "kept", "brought", "bought", "saw", "spent", "threw", "told", "built", "began",
];

fn reports_the_past(lower: &str) -> bool {
    let spaced = format!(
        " {} ",
        lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    );
    PAST_TIMES.iter().any(|t| spaced.contains(t))
}

fn past_tense(word: &str) -> bool {
    (word.len() >= 5 && word.ends_with("ed") && !word.ends_with("eed")) || IRREGULAR_PAST.contains(&word)
}

/// How thinking aloud about one's own choice begins: "I don't know if I want to clean up
/// Pictures/misc today", "not sure whether we should keep Letters". What to do is still being
/// decided, whatever the sentence names or whichever tool's word it uses — followed by the
/// person and a word of deciding ([`DECIDING`]), since "I wonder if you could list Letters"
/// and "I wonder if I could see what's in Letters" ask.
const DELIBERATING: &[&str] = &[
    "i don't know if",
    "i don't know whether",
    "i dont know if",
    "i dont know whether",
    "i'm not sure if",
    "i'm not sure whether",
    "im not sure if",
    "not sure if",
    "not sure whether",
    "i wonder if",
    "i wonder whether",
    "i'm wondering if",
    "i'm wondering whether",
    "i can't decide if",
    "i can't decide whether",
    "i cant decide if",
    "i'm thinking about whether",
    "i'm thinking if",
    "i'm thinking whether",
    "i am thinking if",
    "i am thinking whether",
    "i am thinking about whether",
    "i'm torn about whether",
    // "i keep wondering if Payslips/manual.md should even exist honestly" (a thirty-sixth
    // author).
    "i keep wondering if",
    "i keep wondering whether",
    "i've been wondering if",
    "i've been wondering whether",
    "ive been wondering if",
    "i was wondering if",
    "i was wondering whether",
];

/// What the person is deciding after [`DELIBERATING`] and "I"/"we".
const DECIDING: &[&str] = &["should", "want", "wanna", "need", "ought", "shall", "even"];

/// Whether `text` opens (past lead-ins) with thinking aloud about the person's own choice.
fn deliberates(text: &str) -> bool {
    let lower = lower_quoted(text);
    let words = past_lead_ins(&lower, "");
    DELIBERATING.iter().any(|opening| {
        let Some(n) = opened_by(&words, opening) else { return false };
        // The person's own choice ("… if I should split the recipes up"), or what a thing
        // deserves ("… if Payslips/manual.md should even exist"): not something asked of
        // SMART ("… if you could", "… if there's a copy of it").
        let own_choice = matches!(words[n], "i" | "we") && DECIDING.contains(&words[n + 1]);
        let its_fate = !matches!(words[n], "you" | "u" | "i" | "we")
            && words[n..].iter().take(6).any(|w| matches!(*w, "should" | "shouldn't" | "ought" | "worth"));
        own_choice || its_fate
    })
}

/// How taking time to think opens: "let me think about it", "hmm, let me reason it out a bit
/// before I decide what to do with Podcasts" (a forty-eighth author, Pidgin spelled out). The
/// person is deciding, not asking, whatever the sentence names.
const PONDERING: &[&str] = &[
    "let me think",
    "let me reason",
    "let me mull",
    "let me ponder",
    "let me sleep on",
    // "hang on let me have a think about Clients/raw first" (a fifty-seventh author).
    "let me have a think",
    "i'll have a think",
    "i need to think",
    "i have to think",
    "i'll think",
];

/// Whether `text` opens (past lead-ins) on taking time to think ([`PONDERING`]), with nothing in
/// it addressed to SMART.
fn ponders(text: &str) -> bool {
    let lower = lower_quoted(text);
    let words = past_lead_ins(&lower, "");
    // "hang on", "hold on", "wait" before it only ask for the time.
    let words = match words.as_slice() {
        ["hang" | "hold", "on", rest @ ..] | ["wait", rest @ ..] => rest.to_vec(),
        _ => words,
    };
    PONDERING.iter().any(|opening| opened_by(&words, opening).is_some())
        && !words.iter().any(|w| matches!(*w, "you" | "u" | "your" | "please"))
}

/// How the person tells of an act of their own that may come one day: "i might move agenda.jpg
/// into Garden Plans at some point after my shift", "maybe I'll compress Flyers next week". The
/// person is the one to act, and has not decided to, whatever the sentence names or whichever
/// tool's word it uses. Not "I might need the hash of it", "I may want to see Photos" (a wish
/// put softly), nor anything said to SMART ("I might ask you to …").
const TENTATIVE: &[&str] = &[
    "i might",
    "i may",
    "we might",
    "we may",
    "maybe i'll",
    "maybe we'll",
    "i'll probably",
    "i'll maybe",
    "we'll probably",
    // "thinking i should sort out Photos/old at some point but not today" (a fiftieth author).
    "thinking i should",
    "i'm thinking i should",
    "i was thinking i should",
    // "I was thinking I might sort out Clients at some point next week, but not today" (a
    // fifty-fourth author).
    "thinking i might",
    "i'm thinking i might",
    "i was thinking i might",
];

/// What follows [`TENTATIVE`] when it is a wish put softly, not an act of the person's own.
const SOFT_WISHES: &[&str] = &["need", "want", "wanna", "like", "have", "ask", "be", "get", "check", "see"];

/// Whether `text` opens (past lead-ins) on a tentative act of the person's own ([`TENTATIVE`]),
/// with nothing in it addressed to SMART.
fn tentative_own_act(text: &str) -> bool {
    let lower = lower_quoted(text);
    // "maybe" opens "maybe I'll …", so it is no lead-in here.
    let words = past_lead_ins(&lower, "maybe");
    if text.contains('?') || words.iter().any(|w| matches!(*w, "you" | "u" | "you'll" | "your")) {
        return false;
    }
    let joined = format!(" {} ", words.join(" "));
    if ASKING.iter().any(|a| joined.contains(&format!(" {a} "))) {
        return false;
    }
    TENTATIVE.iter().any(|opening| opened_by(&words, opening).is_some_and(|n| !SOFT_WISHES.contains(&words[n])))
}

/// `text` in lower case with curly apostrophes made straight.
fn lower_quoted(text: &str) -> String {
    text.to_lowercase().replace(['’', '‘'], "'")
}

/// The words of `lower` without their punctuation, past the [`LEAD_INS`] (but `kept`) and "so"
/// they open with.
fn past_lead_ins<'a>(lower: &'a str, kept: &str) -> Vec<&'a str> {
    lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| !w.is_empty())
        .skip_while(|w| (LEAD_INS.contains(w) && *w != kept) || *w == "so")
        .collect()
}

/// How many words `opening` is, when `words` begin with it and go on for at least two more.
fn opened_by(words: &[&str], opening: &str) -> Option<usize> {
    let n = opening.split(' ').count();
    (words.len() > n + 1 && words[..n].join(" ") == opening).then_some(n)
}

/// Tails that say the sentence was only to inform ("…, just so you know"): no clause of their
/// own, since "you know" opens on no subject. The reading's [`super::reading::TELLING`], and
/// "for the record", which the reading keeps (a record may be what is asked for).
fn telling_tails() -> impl Iterator<Item = String> {
    super::reading::TELLING.iter().map(|p| p.join(" ")).chain(["for the record".to_string()])
}

/// `lower` without a [`telling_tails`] tail (and the punctuation around it).
fn without_telling_tail(lower: &str) -> String {
    let trimmed = lower.trim_end_matches(|c: char| !c.is_alphanumeric());
    telling_tails()
        .find_map(|t| {
            trimmed.strip_suffix(t.as_str()).filter(|rest| rest.is_empty() || rest.ends_with([' ', ','])).map(str::len)
        })
        .map_or(lower, |kept| trimmed[..kept].trim_end_matches([' ', ',']))
        .to_string()
}

/// A clause that opens on a participle tells what is going on ("just popping to the post
/// office"); "bring", "string" and "anything" are no participles. Not one that says what the
/// person is after: "looking for my tax papers" asks for a search.
fn participle(word: &str) -> bool {
    word.len() >= 6
        && word.ends_with("ing")
        && !word.ends_with("thing")
        && !matches!(
            word,
            "string" | "spring" | "during" | "looking" | "searching" | "hunting" | "trying" | "wondering" | "hoping"
        )
}

/// Whether `words` are acknowledgements and lead-ins only, at least one acknowledgement.
fn only_acknowledges(words: &[&str]) -> bool {
    let phrases: Vec<&[&str]> =
        ACKNOWLEDGING.iter().copied().chain(LEAD_INS.iter().map(std::slice::from_ref)).collect();
    super::reading::made_of(words, &phrases) && words.iter().any(|w| !LEAD_INS.contains(w))
}

/// The clauses of lower-case `text`: split at punctuation and at [`CLAUSE_WORDS`], each as its
/// words without punctuation; empty clauses dropped.
fn clauses(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = vec![];
    // A dot inside a name ("list.md") ends nothing.
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut parts: Vec<&str> = vec![];
    let mut from = 0;
    for (k, &(i, c)) in chars.iter().enumerate() {
        let alnum = |j: Option<&(usize, char)>| j.is_some_and(|(_, c)| c.is_alphanumeric());
        let in_name = c == '.' && k > 0 && alnum(chars.get(k - 1)) && alnum(chars.get(k + 1));
        if ['.', ',', ';', ':', '!', '?', '—', '–', '…', '(', ')', '"'].contains(&c) && !in_name {
            parts.push(&text[from..i]);
            from = i + c.len_utf8();
        }
    }
    parts.push(&text[from..]);
    for part in parts {
        let mut clause: Vec<&str> = vec![];
        for w in part.split_whitespace() {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            if w.is_empty() || w == "-" {
                continue;
            }
            if CLAUSE_WORDS.contains(&w) {
                if !clause.is_empty() {
                    out.push(std::mem::take(&mut clause));
                }
                continue;
            }
            clause.push(w);
        }
        if !clause.is_empty() {
            out.push(clause);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn says(text: &str) -> bool {
        tells(text, &[], &[])
    }

    #[test]
    fn asking_how_to_do_something_asks_for_no_tool() {
        // What broke (a thirty-second author): applying the last patch was proposed.
        for s in [
            "how do i write a for loop in bash again",
            "How do I undo a commit I already pushed?",
            "so how can you tell if a melon is ripe",
            "how to make the writing bigger on the screen",
        ] {
            assert!(asks_how_to(s, &[], &[]), "{s}");
        }
        // A named thing, a tool's own words, or SMART's work make it a request.
        let named =
            Mention { start: 5, end: 6, kind: MentionKind::New("Photos".into()), preposition: None, wants: None };
        assert!(!asks_how_to("how do i see what's in Photos", &[named], &[]));
        assert!(!asks_how_to("how do i find the duplicates", &[], &["cluster.duplicates"]));
        assert!(!asks_how_to("how do i rebuild the index", &[], &[]));
        assert!(!asks_how_to("show me how it went", &[], &[]));
        assert!(!asks_how_to("how about the duplicates", &[], &[]));
    }

    #[test]
    fn a_sentence_about_the_persons_day_tells() {
        // What broke: each was proposed (applying the last plan or patch, the status report).
        for s in [
            "we have to move house next month and I'm already dreading it",
            "my jeans need a patch on the knee",
            "I'm going to clean the kitchen now",
            "hmm, I am thinking if I should reorganize my folders this weekend or not...",
            "it's raining again",
            "I copied my photos to the laptop last night",
            "that's all for today",
            "we searched everywhere for the cat",
            // What broke (an eleventh author): a status report, a move.
            "I need to move my car before 7",
            "gotta clean the break room fridge later",
            "my list of things to do tomorrow is way too long",
            "hmm I wonder if I should split the recipes up by season, I dunno, still thinking",
            // A twenty-third author's.
            "i am thinking if i should reorganise the folder of Recipes... no, better tomorrow",
            // What broke: "you know" opened a clause of its own.
            "the grocery list is on the fridge not on the computer just so you know",
            "copy that thanks",
            "I'll be back in a minute, just popping to the post office",
            "Oh dear, the kettle's boiling",
            "My granddaughter is visiting on Sunday, isn't that lovely",
            "don't worry about it",
            "ok cool, got it",
            // Said of someone, the verb of carrying out still tells.
            "I'll apply it myself tomorrow",
            "my brother already ran it last week",
        ] {
            assert!(says(s), "{s}");
        }
        // What broke (a fiftieth author): two clauses run together, the second carrying out.
        assert!(!says("ok that looks good apply it"));
        assert!(!says("ok that looks good just apply it"));
        assert!(!says("that seems fine, run it"));
    }

    #[test]
    fn a_tentative_act_of_the_persons_own_tells_whatever_it_names() {
        let named =
            Mention { start: 3, end: 4, kind: MentionKind::New("agenda.jpg".into()), preposition: None, wants: None };
        let cued = ["propose.move"];
        // What broke (a thirty-sixth author): a move plan, and a check of the index.
        for s in [
            "i might move agenda.jpg into Garden Plans at some point after my shift",
            "maybe I'll compress Flyers next week",
            "we may archive the old drafts one day",
            "i keep wondering if Payslips/manual.md should even exist honestly",
            "I've been wondering whether the 2019 folder ought to go",
            // A fiftieth author.
            "thinking i should sort out Photos/old at some point but not today",
            // A fifty-second author.
            "tomorrow i might move the old listings into Flyers but not yet",
            "i wonder if agenda.jpg is even worth keeping ill think about it",
            // A fifty-fourth author.
            "I was thinking I might sort out Clients at some point next week, but not today, I'm rather tired.",
        ] {
            assert!(tells(s, std::slice::from_ref(&named), &cued), "{s}");
        }
        for s in [
            "i might need the hash of agenda.jpg",
            "I may want to see what's in Flyers",
            "i might move agenda.jpg later, can you draft it?",
            "maybe I'll let you move agenda.jpg into Garden Plans",
            "i was wondering if you could move agenda.jpg",
            "i keep wondering if there are copies of agenda.jpg",
            "thinking i should ask you to scan Photos/old",
        ] {
            assert!(!tells(s, std::slice::from_ref(&named), &cued), "{s}");
        }
    }

    #[test]
    fn a_request_asks_however_it_begins() {
        for s in [
            "move the drafts into the archive",
            "I'm done with the old drafts, bin them",
            "I'm done with the old drafts just bin them",
            "I wonder what's taking up all the space",
            "I think there's something wrong, can you check",
            "my photos are a mess, sort them out",
            "I'd like a status report",
            "I need the hash of the report",
            "is it raining?",
            "which of these are old",
            "what's taking up space",
            "good morning",
            "yes",
            "ok go ahead",
            "copy that to the other folder",
            "bring me the old drafts",
            "looking for my tax papers",
            // What broke: "anything" read as a participle.
            "anything in my files about lighthouse",
            "finding the old receipts would be nice",
            "just delete them",
            "let's tidy up",
            "the index needs rebuilding",
            "the plan looks good",
            "that list is fine",
            "I need the sizes of everything",
            "the quarantine is getting big",
            "",
        ] {
            assert!(!says(s), "{s}");
        }
    }

    #[test]
    fn a_named_file_or_a_cue_leaves_it_to_the_rest_of_understanding() {
        let named =
            Mention { start: 0, end: 1, kind: MentionKind::New("portfolio.md".into()), preposition: None, wants: None };
        assert!(!tells("portfolio.md belongs in the other one", &[named], &[]));
        let back = Mention { start: 5, end: 6, kind: MentionKind::Back, preposition: None, wants: None };
        assert!(tells("I finished reading it", &[back], &[]));
        assert!(!tells("my hard disk is full of twins", &[], &["cluster.duplicates"]));
    }

    #[test]
    fn a_report_of_what_was_done_tells_whatever_it_names() {
        let named =
            Mention { start: 3, end: 4, kind: MentionKind::New("Letters".into()), preposition: None, wants: None };
        // What broke (a fifteenth and a seventeenth author): a scan, a bundle of the file named.
        for s in [
            "I finished the translation in letters yesterday",
            "finally cleaned up wallpapers last night and honestly it feels great",
            "phew, finally got reading list.md finished for the school this morning",
        ] {
            assert!(tells(s, std::slice::from_ref(&named), &[]), "{s}");
        }
        // What broke (a twenty-seventh author): a quarantine of the file and folder named, and
        // reading the file. The act's own words are said, and a clause of thanks opens on no
        // subject.
        // What broke (a twenty-ninth author): a move of what was moved, the time first and the
        // verb in the present tense.
        for s in [
            "I already moved agenda.jpg into letters myself, so there's nothing for you to do there.",
            "I've restored diary.zip from the backup already, thank you, so that's sorted.",
            "yesterday I move agenda.jpg to Letters by myself, nothing to do now",
        ] {
            assert!(tells(s, std::slice::from_ref(&named), &["propose.move"]), "{s}");
        }
        // A request beside the report still asks; no time gone by, the name still decides.
        for s in [
            "I shifted old.txt over to Letters yesterday, set up a way for old links to find it",
            "open notes.txt and show me the text, the school sent it over last night",
            "I edited notes.txt yesterday - is it still what you remember?",
            "I finished the translation in letters",
            "tidied letters yesterday, now compress it",
            "I already hashed letters, now compress it",
            "I already made a list, please apply it",
            "has letters already been compressed?",
            "yesterday I moved agenda.jpg to Letters, now compress it",
        ] {
            assert!(!tells(s, std::slice::from_ref(&named), &[]), "{s}");
        }
    }

    #[test]
    fn a_sentence_about_one_named_thing_that_asks_nothing_tells() {
        use crate::understand::vocab::{EntryKind, under_r};
        let vocab = under_r(&[
            ("Clients", EntryKind::Dir),
            ("Flyers", EntryKind::Dir),
            ("Flyers/misc", EntryKind::Dir),
            ("Podcasts", EntryKind::Dir),
            ("quote.png", EntryKind::File),
            ("contacts.docx", EntryKind::File),
        ]);
        let describes = |s: &str| {
            let r = crate::understand::read(s);
            let m = crate::understand::mentions::find(&r, &vocab);
            let cued = crate::understand::cues::cued(&r, &m, &|_| false);
            describes_a_named_thing(s, &r, &m, &cued)
        };
        // What broke (authors' dev): reading, listing or looking for copies of the thing.
        for s in [
            "Clients is such a mess lol",
            "quote.png is a letter my late husband wrote, I get quite sentimental looking at it.",
            "flyers slash misc is where I keep the old contracts from 2019",
            "ngl i shouldve named contacts.docx something better",
            "the folder Podcasts was created by my colleague",
            "the folder Podcasts was created by my colleague, not me",
        ] {
            assert!(describes(s), "{s}");
        }
        // A wish, a question inside the statement, a request beside it, a cue, two things named.
        for s in [
            "Clients needs a good tidy",
            "we should clean up Clients",
            "contacts.docx belongs somewhere else",
            "I've forgotten what's in Podcasts",
            "Clients is a mess, sort it out",
            "is Clients up to date",
            "quote.png is where?",
            "read quote.png",
            "contacts.docx and quote.png are both old",
            "Clients is full of duplicates",
            "I'd love to see Podcasts",
            // What broke (authors-dev:616): the thing as the topic of a request.
            "ok so quote dot p n g swap the word tuesday for orange",
            "Podcasts, list everything",
        ] {
            assert!(!describes(s), "{s}");
        }
    }

    #[test]
    fn thinking_aloud_about_ones_own_choice_tells_whatever_it_names() {
        let named = Mention {
            start: 8,
            end: 9,
            kind: MentionKind::New("Pictures/misc".into()),
            preposition: None,
            wants: None,
        };
        // What broke (a fifteenth author): a duplicates search of the folder it named.
        for s in [
            "hmm i don't know if i want to clean up Pictures/misc today or tomorrow",
            "Not sure whether we should keep Pictures/misc at all.",
            "so I wonder if I should delete Pictures/misc?",
        ] {
            assert!(tells(s, std::slice::from_ref(&named), &["fs.quarantine"]), "{s}");
        }
        // Asking, however politely it begins.
        for s in [
            "I wonder if you could list Pictures/misc",
            "I wonder if I could see what's in Pictures/misc",
            "I don't know what's in Pictures/misc, list it",
        ] {
            assert!(!tells(s, std::slice::from_ref(&named), &[]), "{s}");
        }
        // What broke (a forty-eighth author): a search for the folder named.
        let pondering = "hmm, let me reason it small before I decide what to do with Pictures/misc";
        assert!(tells(pondering, std::slice::from_ref(&named), &["rag.search"]));
        assert!(!tells("let me think, can you list Pictures/misc for me", std::slice::from_ref(&named), &[]));
        // What broke (a fifty-seventh author): a quarantine list of the folder named.
        let a_think = "hang on let me have a think about Pictures/misc first";
        assert!(tells(a_think, std::slice::from_ref(&named), &[]));
    }
}
