//! Reading an utterance: the words a person meant, in the form the rest of understanding works on.
//!
//! People type the way they talk ("um scan notes dot t x t please"), and whisper writes what it
//! hears ("Scan notes dot TXT."). Both reach the same reading: fillers and politeness gone, the
//! spoken spellings of paths joined back — "dot" before an extension (said as a word or letter by
//! letter), "slash" between two names, "underscore" and "dash" inside one — and the sentence's
//! closing punctuation dropped. Case is kept: a model reads "Invoices" better than "invoices",
//! and names are matched without case anyway.
//!
//! Texting shorthand ("can u list Letters pls", "nvm") is spelled out first, by
//! [`spelled_out`], on the sentence itself, and a slipped letter in a word the rules lean on is
//! put right ([`super::misspelt`]): the rules that read the sentence as typed (a statement's, a
//! template's) see the same words as the reading.
//!
//! It is deliberately conservative: a word joins a path only next to a name-like word, never a
//! function word, so "connect the dots", "a slash at the end" and "dot your i's" stay as said.

/// An utterance as understanding reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The words, space-joined.
    pub text: String,
    pub words: Vec<String>,
    /// For each word, whether a sentence ended after it (a full stop, question mark or
    /// exclamation mark was said or typed there): the punctuation is gone from the words, but
    /// "… five documents on pottery? I have not the stamina for a longer list" is two sentences.
    pub ends: Vec<bool>,
    /// For each word, whether a clause ended after it: a comma, semicolon or colon was
    /// said or typed there *and* a new clause opens after it (a subject or an asking verb: "… about
    /// origami, I don't want a great long list" says its topic before the comma). A comma
    /// alone ends nothing: "about bread, butter and jam" is one topic, and whisper writes
    /// commas wherever the speaker breathes.
    pub clauses: Vec<bool>,
    /// For each word, whether a comma, semicolon or colon was said or typed after it, whatever
    /// follows: "Clients is a mess, sort it out" is a statement and a request.
    pub pauses: Vec<bool>,
    /// What was put in double quotes (`swap "purple" for "bronze" - client rebranded`), each
    /// in lower case and in words as they are read: where quoted words end, the quotation
    /// says, though its marks are gone from the words.
    pub quoted: Vec<String>,
}

impl Reading {
    /// The words in lower case (for matching).
    pub fn lower(&self) -> Vec<String> {
        self.words.iter().map(|w| w.to_lowercase()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether a sentence or a clause ended after word `i`.
    pub fn ends_clause(&self, i: usize) -> bool {
        self.ends.get(i).copied().unwrap_or(false) || self.clauses.get(i).copied().unwrap_or(false)
    }

    /// The sentences, as word ranges (the end exclusive), in order; one when no sentence ended
    /// before the last word.
    pub fn sentences(&self) -> Vec<(usize, usize)> {
        let mut out = vec![];
        let mut opens = 0;
        for i in 0..self.words.len() {
            if self.ends.get(i).copied().unwrap_or(false) || i + 1 == self.words.len() {
                out.push((opens, i + 1));
                opens = i + 1;
            }
        }
        out
    }
}

/// Sounds people make while they think: never part of a request.
const FILLERS: &[&str] = &["um", "umm", "uh", "uhh", "uhm", "er", "erm", "hmm", "hm", "mm", "ah", "eh"];

/// Texting shorthand and what it stands for. People type to an assistant as they text a friend
/// ("can u list Letters pls", "swap walnut w cedar in notes.txt", "move it... nvm actually
/// dont"), and every rule of understanding reads whole words. Only lower case: an upper-case
/// single letter is a name ("code in R"). An empty expansion is a sound of its own ("lol").
/// Not "gonna": the statement rule knows it as a clause whose subject goes unsaid ("gonna clean
/// the kitchen later"), which "going to" is not (a sixteenth author's "is it gonna rain
/// tomorrow" was proposed a call once spelled out).
const SHORTHAND: &[(&str, &str)] = &[
    ("u", "you"),
    ("ur", "your"),
    ("r", "are"),
    ("n", "and"),
    ("w", "with"),
    ("k", "ok"),
    ("pls", "please"),
    ("plz", "please"),
    ("thx", "thanks"),
    ("ty", "thank you"),
    ("rn", "right now"),
    ("atm", "at the moment"),
    ("idk", "i don't know"),
    ("nvm", "never mind"),
    ("tmrw", "tomorrow"),
    ("b4", "before"),
    ("shud", "should"),
    ("shld", "should"),
    ("shd", "should"),
    ("wld", "would"),
    ("cld", "could"),
    ("abt", "about"),
    ("bc", "because"),
    ("cuz", "because"),
    ("lemme", "let me"),
    ("gimme", "give me"),
    ("wanna", "want to"),
    ("aight", "alright"),
    ("yea", "yeah"),
    ("em", "them"),
    ("smth", "something"),
    ("tho", "though"),
    ("yeet", "throw away"),
    ("yeeting", "throwing away"),
    ("lol", ""),
    ("lmao", ""),
    ("ngl", ""),
    ("tbh", ""),
    ("yo", ""),
    ("bruh", ""),
    ("fr", ""),
    ("lowkey", ""),
    // Scots as it is typed (a forty-fourth author: "whit's in Podcasts the noo?", "swap the
    // word walnut fur thursday", "rename agenda.jpg tae scratch.pdf"). Only words with no other
    // sense a request here would have: not "ken" (a name too), "mind" (also "never mind"),
    // "aye" (a go-ahead as it is), "ah" (a sound as often as "I") or "an" (an article).
    ("whit", "what"),
    ("whit's", "what's"),
    ("cannae", "can't"),
    ("canna", "can't"),
    ("dinnae", "don't"),
    ("dinna", "don't"),
    ("didnae", "didn't"),
    ("doesnae", "doesn't"),
    ("isnae", "isn't"),
    ("wasnae", "wasn't"),
    ("wouldnae", "wouldn't"),
    ("couldnae", "couldn't"),
    ("shouldnae", "shouldn't"),
    ("havenae", "haven't"),
    ("ah'm", "i'm"),
    ("ah've", "i've"),
    ("ah'd", "i'd"),
    ("ah'll", "i'll"),
    ("ye", "you"),
    ("yer", "your"),
    ("intae", "into"),
    ("tae", "to"),
    ("oot", "out"),
    ("aboot", "about"),
    ("fur", "for"),
    ("fae", "from"),
    ("frae", "from"),
    ("jist", "just"),
    ("wi", "with"),
    ("o", "of"),
    ("dae", "do"),
    ("hae", "have"),
    ("gie", "give"),
    ("anythin", "anything"),
    ("somethin", "something"),
    ("nothin", "nothing"),
    ("everythin", "everything"),
    ("efter", "after"),
    ("auld", "old"),
    ("wan", "one"),
    ("yin", "one"),
    ("yins", "ones"),
    ("wis", "was"),
    ("pit", "put"),
    ("hale", "whole"),
    ("wrang", "wrong"),
    ("noo", "now"),
    ("masel", "myself"),
    ("ma", "my"),
    ("naw", "no"),
    ("doon", "down"),
    ("encodin", "encoding"),
    ("thinkin", "thinking"),
    ("lyin", "lying"),
    ("askin", "asking"),
    ("ony", "any"),
    // Nigerian Pidgin as it is typed (a forty-eighth author: "abeg make you show me wetin dey
    // inside Clients", "comot agenda.jpg from my way"). Words a request here would have in
    // another sense are read in context ([`in_context`]): "am", "e", "o", "wan", "no", "na".
    ("abeg", "please"),
    ("biko", "please"),
    ("oya", ""),
    ("sef", ""),
    ("abi", ""),
    ("wetin", "what"),
    ("wey", "that"),
    ("dem", "them"),
    ("sabi", "know"),
    ("comot", "get rid of"),
    ("dey", "is"),
    // Words of a speaker's first language for the two nouns every request here leans on (a
    // fifty-sixth author, from Mexico: "what is inside the carpeta Podcasts", "read me the
    // archivo"), and thanks in it. "por favor" is a pair (below).
    ("carpeta", "folder"),
    ("carpetas", "folders"),
    ("archivo", "file"),
    ("archivos", "files"),
    ("gracias", "thanks"),
    // Spellings of speech (a fifty-seventh author, from Australia: "dig thru Photos/old",
    // "Garden Plans oughta be called scratch.md").
    ("thru", "through"),
    ("oughta", "ought to"),
];

/// Two words typed together that stand for others, as a pair only ("make you show me …" asks;
/// "make it bronze" makes).
const PAIRS: &[(&str, &str, &str)] = &[
    ("make", "you", "please"),
    ("make", "i", "let me"),
    ("make", "e", "let it"),
    ("na", "wa", ""),
    ("na", "so", ""),
    ("sharp", "sharp", "quickly"),
    ("now", "now", "now"),
    ("dey", "for", "is in"),
    ("e", "don", "it has"),
    ("suppose", "be", "should be"),
    ("por", "favor", "please"),
];

/// Verbs that a Pidgin "no" before them says not to do ("no touch anything", "no apply am yet").
/// Not "change" or "do", which follow an English "no" as nouns ("no change needed").
const NOT_TO_DO: &[&str] = &["touch", "move", "apply", "delete", "carry", "comot", "remove"];

/// Words after which "archive" is a file's noun, not the compaction's verb or its tarball.
const ARCHIVE_AS_FILE: &[&str] = &["that", "this", "same", "these", "those", "many", "of", "what", "which"];

/// A word whose Pidgin (or false friend's) sense shows only in context, spelled out, or `None`
/// when the word is read as it is: "am" is "it" unless "I" is beside it or a time before it ("I am", "am I",
/// "9 am"); a lone "e" is "it" (not one of a spelt name's letters); "o" ending a clause only
/// stresses it (elsewhere it is the Scots "of"); "wan" after "I" is "want" (elsewhere "one");
/// "na" between words is "is"; "no" before a verb of doing is "don't"; and a Spanish speaker's
/// "carpet", "archive" and "actual" (below).
fn in_context(word: &str, before: Option<&str>, after: Option<&str>, ends_clause: bool) -> Option<&'static str> {
    // A name said next: a capital, a folder's slash or an extension's dot.
    let name_next = after.is_some_and(|a| a.starts_with(char::is_uppercase) || a.contains(['/', '.']));
    let before = before.map(str::to_lowercase);
    let after = after.map(str::to_lowercase);
    let numeric =
        |w: &Option<String>| w.as_deref().is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()));
    let single_letter = |w: &Option<String>| w.as_deref().is_some_and(|w| w.chars().count() == 1);
    match word {
        "am" if before.as_deref() != Some("i") && after.as_deref() != Some("i") && !numeric(&before) => Some("it"),
        "e" if !single_letter(&before) && !single_letter(&after) => Some("it"),
        "o" if ends_clause => Some(""),
        "wan" if before.as_deref() == Some("i") => Some("want"),
        "na" if before.is_some() && after.is_some() => Some("is"),
        "no" if !ends_clause && after.as_deref().is_some_and(|a| NOT_TO_DO.contains(&a)) => Some("don't"),
        // A Spanish speaker's false friends (a fifty-sixth author): "carpeta" is a folder, and
        // said before a name "carpet" is one too ("inside the carpet Flyers"); "archivo" is a
        // file, and "archive" after a word that points or counts is one ("that same archive",
        // "what type of archive is agenda.jpg", "so many archives") or after "the" before a
        // name ("open the archive notes.txt") — never the verb ("archive it", "archive the
        // folder") or a compaction's own noun ("into an archive"); "still actual" is "still
        // current" ("the index is still actual for todo.md").
        "carpet" if name_next => Some("folder"),
        "carpets" if name_next => Some("folders"),
        "archive" | "archives"
            if before.as_deref().is_some_and(|b| ARCHIVE_AS_FILE.contains(&b))
                || (before.as_deref() == Some("the") && name_next) =>
        {
            Some(if word == "archive" { "file" } else { "files" })
        }
        "actual" if before.as_deref() == Some("still") => Some("current"),
        _ => None,
    }
}

/// Punctuation said as a word, as a phone's dictation writes it when told to ("replace tuesday
/// with bronze comma in wishlist.md period", a fifty-second author): the mark it names. Never
/// after a word that makes it a thing ("add a comma", "the limitation period"); a sentence's
/// end only at the end, past thanks ("… it period thanks").
const SPOKEN_MARKS: &[(&[&str], &str)] =
    &[(&["comma"], ","), (&["period"], "."), (&["full", "stop"], "."), (&["question", "mark"], "?")];

/// Words before a spoken mark that make it a thing named, not punctuation ("replace the
/// semicolon with comma", "search for oxford comma").
const NAMING_A_MARK: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "each",
    "every",
    "no",
    "one",
    "any",
    "with",
    "for",
    "about",
    "on",
    "to",
    "by",
    "of",
    "oxford",
    "serial",
    "limitation",
    "trial",
    "grace",
    "waiting",
];

/// Words a dictated sentence may end on before "period": a name, a number, a pronoun. After
/// any other word "period" may be the word itself ("my notes on the Jurassic period"), unless
/// the sentence was dictated with its punctuation elsewhere too.
fn may_end_before_mark(word: &str) -> bool {
    word.contains(['.', '/'])
        || word.chars().any(|c| c.is_ascii_digit())
        || matches!(word, "it" | "them" | "this" | "that" | "me" | "us" | "now" | "please")
}

/// Words that may follow a sentence's end said as a word, to the end of what was said.
const SIGN_OFFS: &[&str] = &["thanks", "thank", "you", "please", "ok", "okay", "cheers", "ta"];

/// The mark said as words at token `i` of `cores` (the tokens' words, lower case), and how many
/// words say it.
/// `dictated`: a comma was said as a word somewhere in the sentence ("… bronze comma in
/// wishlist.md period").
fn spoken_mark(cores: &[String], i: usize, dictated: bool) -> Option<(&'static str, usize)> {
    let before = cores.get(i.checked_sub(1)?)?;
    if NAMING_A_MARK.contains(&before.as_str()) {
        return None;
    }
    SPOKEN_MARKS.iter().find_map(|(words, mark)| {
        let said = cores.get(i..i + words.len())?.iter().zip(words.iter()).all(|(c, w)| c == w);
        let rest = &cores[i + words.len()..];
        let too_early = *mark != "," && !rest.iter().all(|w| SIGN_OFFS.contains(&w.as_str()));
        let ends_a_sentence = *mark == "," || dictated || may_end_before_mark(before);
        (said && !too_early && ends_a_sentence).then_some((*mark, words.len()))
    })
}

/// Shorthand typed with a slash, whole tokens only ("swap walnut w/ cedar"): the slash would
/// otherwise stay on the word it shortens ("with/").
const SLASHED: &[(&str, &str)] = &[("w/", "with"), ("w/o", "without")];

/// `utterance` with texting [`SHORTHAND`] spelled out, its punctuation kept: what the rest of
/// understanding reads, typed or heard.
pub fn spelled_out(utterance: &str) -> String {
    let split = |token: &'_ str| {
        let start = token.find(|c: char| c.is_alphanumeric()).unwrap_or(token.len());
        let end =
            token.char_indices().rev().find(|(_, c)| c.is_alphanumeric()).map_or(start, |(i, c)| i + c.len_utf8());
        (start, end)
    };
    let tokens: Vec<&str> = utterance.split_whitespace().collect();
    let core_at = |i: usize| {
        tokens.get(i).map(|t| {
            let (start, end) = split(t);
            &t[start..end]
        })
    };
    // "notes dot j s o n": a letter in the run of letters after "dot" is a spelt name's, not a
    // word ("r u sure" is two words).
    let letter = |i: usize| core_at(i).is_some_and(|c| c.chars().count() == 1);
    let spelt = |i: usize| {
        let first = (0..=i).rev().take_while(|&j| letter(j)).last();
        first.is_some_and(|j| j > 0 && core_at(j - 1).is_some_and(|c| c.eq_ignore_ascii_case("dot")))
    };
    let said_as: Vec<String> = (0..tokens.len()).filter_map(core_at).map(str::to_lowercase).collect();
    let dictated = said_as.iter().any(|c| c == "comma");
    // Whether each token stands inside double quotes (an odd number of them before it).
    let quoted: Vec<bool> = tokens
        .iter()
        .scan(0usize, |marks, t| {
            let inside = *marks % 2 == 1;
            *marks += t.matches(['"', '“', '”']).count();
            Some(inside)
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut skip = 0;
    for (i, token) in tokens.iter().copied().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        // A mark said as a word, plain (no quotes, nothing typed around it).
        if let Some((mark, words)) = spoken_mark(&said_as, i, dictated)
            && token.chars().all(char::is_alphabetic)
            && let Some(last) = out.last_mut()
        {
            last.push_str(mark);
            skip = words - 1;
            continue;
        }
        // "sizes + hashes": a plus on its own is the word (not "&", which names hold: "Terms &
        // Conditions.pdf").
        if token == "+" {
            out.push("and".into());
            continue;
        }
        let bare = token.trim_end_matches([',', '.', '!', '?', ';', ':']);
        if let Some((_, long)) = SLASHED.iter().find(|(short, _)| bare.eq_ignore_ascii_case(short)) {
            out.push(format!("{long}{}", &token[bare.len()..]));
            continue;
        }
        let (start, end) = split(token);
        let (lead, core, tail) = (&token[..start], &token[start..end], &token[end..]);
        // A word of two letters or more may open a sentence with a capital ("Whit's in
        // Podcasts?"); a single upper-case letter stays a name.
        let opens_sentence = i == 0 || tokens[i - 1].ends_with(['.', '!', '?']);
        let lowered = core.to_lowercase();
        let as_typed = if opens_sentence && core.chars().count() > 1 && core.chars().skip(1).all(|c| !c.is_uppercase())
        {
            lowered.as_str()
        } else {
            core
        };
        // A pair said together, the first word with nothing after it, stands for its words
        // with the second word's punctuation; else one word in context, else shorthand.
        let spelt_here = spelt(i);
        let next = core_at(i + 1);
        let pair = PAIRS.iter().find(|(a, b, _)| {
            *a == as_typed && tail.is_empty() && next.is_some_and(|n| n.eq_ignore_ascii_case(b)) && !spelt_here
        });
        let (said, tail) = match pair {
            Some((_, _, long)) => {
                skip = 1;
                (Some(*long), tokens.get(i + 1).map_or("", |t| &t[split(t).1..]))
            }
            None => {
                let ends_clause = !tail.is_empty() || i + 1 == tokens.len();
                let before = i.checked_sub(1).and_then(core_at);
                let contextual = in_context(as_typed, before, next, ends_clause);
                let short = || SHORTHAND.iter().find(|(short, _)| *short == as_typed).map(|(_, long)| *long);
                // A slipped letter ("docuemnt"), unless the word is quoted or said beside its
                // right spelling ("replace libary with library": a typo in the file is meant).
                // A capital, even opening the sentence, may be a name's ("Libary needs a scan").
                let slip = || {
                    super::misspelt::corrected(core)
                        .filter(|right| lead.is_empty() && !quoted[i] && !said_as.iter().any(|w| w == right))
                };
                (contextual.or_else(short).or_else(slip).filter(|_| !spelt_here), tail)
            }
        };
        match said {
            Some("") => {
                // The punctuation after a sound still ends what came before it.
                if let Some(last) = out.last_mut().filter(|_| !tail.is_empty()) {
                    last.push_str(tail);
                }
            }
            Some(long) => out.push(format!("{lead}{long}{tail}")),
            None => out.push(token.to_string()),
        }
    }
    out.join(" ")
}

/// Openings that only address the assistant or soften the request.
const OPENINGS: &[&[&str]] = &[
    &["hey", "smart"],
    &["ok", "smart"],
    &["okay", "smart"],
    &["smart"],
    &["could", "you", "please"],
    &["can", "you", "please"],
    &["would", "you", "please"],
    &["could", "you"],
    &["can", "you"],
    &["would", "you"],
    &["will", "you"],
    &["i", "want", "you", "to"],
    &["i'd", "like", "you", "to"],
    // A request put as a doubt or a permission (a fifty-fourth author: "I don't suppose you
    // could possibly give me its content hash", "might you hunt them out").
    &["i", "don't", "suppose", "you", "could", "possibly"],
    &["i", "don't", "suppose", "you", "could"],
    &["i", "dont", "suppose", "you", "could"],
    &["could", "you", "possibly"],
    &["might", "you"],
    &["one", "might", "perhaps"],
    &["one", "might"],
    &["would", "you", "be", "so", "kind", "as", "to"],
    // A Spanish speaker's courtesy, word for word (a fifty-sixth author: "Make me the favor of
    // showing me what is inside …", "I want that you read the text of …").
    &["make", "me", "the", "favor", "of"],
    &["do", "me", "the", "favor", "of"],
    &["i", "want", "that", "you"],
    &["please"],
    &["ok"],
    &["okay"],
    &["alright"],
    &["so"],
    &["well"],
    &["now"],
    &["and"],
    &["yes"],
    &["yeah"],
];

/// Closings that only soften it. Said between commas anywhere ("I'd like you to remember, if
/// you would, that …"), or at the end, they are no part of a request: a polite sentence's
/// closing became a search for "me thank you so much" and a note of "if you would that …".
const CLOSINGS: &[&[&str]] = &[
    &["please"],
    &["for", "me"],
    &["thanks"],
    &["thank", "you"],
    &["now", "please"],
    &["thank", "you", "so", "much"],
    &["thank", "you", "very", "much"],
    &["thanks", "so", "much"],
    &["thanks", "a", "lot"],
    &["many", "thanks"],
    &["cheers"],
    &["dear"],
    &["kindly"],
    &["if", "you", "would"],
    &["if", "you", "could"],
    &["if", "you", "please"],
    &["if", "you", "don't", "mind"],
    &["if", "you", "wouldn't", "mind"],
    &["if", "it", "isn't", "too", "much", "trouble"],
    &["if", "it's", "not", "too", "much", "trouble"],
    // A fifty-fourth author's.
    &["if", "it", "isn't", "too", "much", "bother"],
    &["if", "it's", "not", "too", "much", "bother"],
    &["if", "it's", "no", "trouble"],
    &["if", "it's", "no", "bother"],
    &["if", "it", "is", "no", "trouble"],
    &["if", "you'd", "be", "so", "kind"],
    &["if", "you", "would", "be", "so", "kind"],
    &["many", "thanks", "indeed"],
    &["thank", "you", "ever", "so", "much"],
    &["thanks", "ever", "so"],
    &["much", "obliged"],
    &["thank", "you", "most", "kindly"],
    &["most", "kindly"],
    &["if", "possible"],
    &["when", "you", "get", "a", "chance"],
    &["when", "you", "have", "a", "moment"],
];

/// What a person adds to a sentence that tells rather than asks ("…, just so you know"): a
/// closing like the others here, and to [`super::statement`] a sign that the sentence tells.
pub(super) const TELLING: &[&[&str]] =
    &[&["just", "so", "you", "know"], &["so", "you", "know"], &["fyi"], &["for", "your", "information"]];

/// [`CLOSINGS`] and [`TELLING`]: every ending that is no part of a request.
fn closings() -> impl Iterator<Item = &'static [&'static str]> {
    CLOSINGS.iter().chain(TELLING).copied()
}

/// Words that are never part of a spoken path ("a slash at the end").
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "at", "in", "on", "to", "of", "and", "or", "is", "it", "my", "your", "this", "that", "for",
    "with", "from", "into", "its", "his", "her", "their", "our",
];

/// Extensions people say as a word even after whisper heard a full stop before them ("old. log").
const KNOWN_EXTENSIONS: &[&str] = &[
    "txt", "log", "md", "pdf", "png", "jpg", "jpeg", "gif", "doc", "docx", "csv", "json", "zip", "mp3", "mp4", "toml",
    "xlsx", "xls", "ods", "odt", "pptx", "wav", "gz", "tar", "html", "rs", "py",
];

/// How a word ends a sentence or a clause, not a name.
fn trim_punct(w: &str) -> &str {
    w.trim_matches(|c: char| matches!(c, '.' | ',' | '!' | '?' | ';' | ':' | '"' | '“' | '”' | '‘' | '’' | '`'))
        .trim_start_matches('\'')
}

fn is_name(w: &str) -> bool {
    !w.is_empty()
        && !FUNCTION_WORDS.contains(&w.to_lowercase().as_str())
        && w.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '(' | ')' | '\''))
        && w.chars().last().is_some_and(|c| c.is_alphanumeric() || c == ')')
}

fn is_extension(w: &str) -> bool {
    (1..=5).contains(&w.len()) && w.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Reads `utterance` (typed or heard).
pub fn read(utterance: &str) -> Reading {
    let utterance = without_asides(utterance);
    // Words, each without the punctuation that ends a clause (but keeping a name's own dots),
    // and whether a sentence ends after it.
    let mut words: Vec<Word> = vec![];
    for w in utterance.split_whitespace() {
        // "old. log" and "notes.TXT." are heard forms of a name: keep the inner dot.
        let t = trim_punct(w);
        let closed = w.trim_end_matches(['"', '”', '’', ')', '\'']);
        let after = if closed.ends_with(['.', '?', '!']) {
            After::Sentence
        } else if closed.ends_with([',', ';', ':']) {
            After::Pause
        } else {
            After::Nothing
        };
        if t.is_empty() || FILLERS.contains(&t.to_lowercase().as_str()) {
            // A sentence that ends on a filler or on punctuation alone ends on the word before.
            if let Some(last) = words.last_mut() {
                last.1 = last.1.max(after);
            }
            continue;
        }
        words.push((t.to_string(), after));
    }
    strip_edges(&mut words);
    let joined = join_paths(&words);
    let words: Vec<String> = joined.iter().map(|(w, _)| w.clone()).collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let n = joined.len();
    // The end of the reading is no boundary between sentences or clauses.
    let ends = joined.iter().enumerate().map(|(i, (_, a))| *a == After::Sentence && i + 1 < n).collect();
    let clauses = joined
        .iter()
        .enumerate()
        .map(|(i, (_, a))| *a == After::Pause && lower.get(i + 1).is_some_and(|w| CLAUSE_OPENERS.contains(&w.as_str())))
        .collect();
    let pauses = joined.iter().enumerate().map(|(i, (_, a))| *a == After::Pause && i + 1 < n).collect();
    Reading { text: words.join(" "), words, ends, clauses, pauses, quoted: quotations(&utterance) }
}

/// The phrases `utterance` puts in double quotes (straight or curly), lower case, in the
/// reading's words; an unclosed quote is none.
fn quotations(utterance: &str) -> Vec<String> {
    let mut out = vec![];
    let mut rest = utterance;
    while let Some((open, mark)) = rest.char_indices().find(|(_, c)| matches!(c, '"' | '“')) {
        let after = &rest[open + mark.len_utf8()..];
        let Some((close, end)) = after.char_indices().find(|(_, c)| matches!(c, '"' | '”')) else {
            break;
        };
        let phrase: Vec<String> =
            after[..close].split_whitespace().map(|w| trim_punct(w).to_lowercase()).filter(|w| !w.is_empty()).collect();
        if !phrase.is_empty() {
            out.push(phrase.join(" "));
        }
        rest = &after[close + end.len_utf8()..];
    }
    out
}

/// What was said or typed after a word: nothing, a pause (a comma, semicolon or colon),
/// or the end of a sentence. Ordered: where two meet (a word, then a filler with a full stop),
/// the stronger stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum After {
    #[default]
    Nothing,
    Pause,
    Sentence,
}

/// Words that open a new clause after a pause: a subject, or a verb that asks or tells before
/// its subject ("…, would you …", "…, is that safe"). Not "and" or "or", which go on with a
/// list as often as they open a clause, nor "it", which is as often the thing acted on.
const CLAUSE_OPENERS: &[&str] = &[
    "i", "i'm", "i'd", "i've", "i'll", "we", "we're", "you", "he", "she", "they", "would", "could", "can", "will",
    "do", "does", "did", "is", "are", "was", "were", "if", "whether", "because", "since", "though", "although",
];

/// A word of a reading, and what was said after it.
type Word = (String, After);

/// `utterance` without the parts between commas that are only [`closings`] ("…, if you would,
/// …", "…, thank you so much").
fn without_asides(utterance: &str) -> String {
    let parts: Vec<&str> = utterance.split(',').collect();
    if parts.len() < 2 {
        return utterance.to_string();
    }
    let aside = |part: &str| {
        let words: Vec<String> =
            part.split_whitespace().map(|w| trim_punct(w).to_lowercase()).filter(|w| !w.is_empty()).collect();
        made_of(&words, &closings().collect::<Vec<_>>())
    };
    // "I'm content. If it's not too much bother, do put it into effect." (a fifty-fourth
    // author): a closing that opens its sentence is aside too, the sentence before it kept.
    fn opening_aside<'p>(part: &'p str, aside: &dyn Fn(&str) -> bool) -> Option<&'p str> {
        let at = part.trim_end().rfind(['.', '!', '?'])?;
        aside(&part[at + 1..]).then(|| &part[..=at])
    }
    let mut kept = String::new();
    // Whether what is kept so far ends a sentence: the next part follows it without a comma.
    let mut ended = false;
    for (i, part) in parts.iter().enumerate() {
        let (text, ends) = match opening_aside(part, &aside) {
            Some(before) if i + 1 < parts.len() => (before, true),
            _ if aside(part) => continue,
            _ => (*part, false),
        };
        if !kept.is_empty() && !ended {
            kept.push(',');
        }
        kept.push_str(text);
        ended = ends;
    }
    if kept.is_empty() { utterance.to_string() } else { kept }
}

/// Whether lower-case `words` are, one after another, nothing but `phrases` (the longest that
/// fits at each place), and at least one.
pub(super) fn made_of<S: AsRef<str>>(words: &[S], phrases: &[&[&str]]) -> bool {
    let mut i = 0;
    while i < words.len() {
        let fits = |p: &&&[&str]| {
            words.len() >= i + p.len() && words[i..i + p.len()].iter().zip(p.iter()).all(|(a, b)| a.as_ref() == *b)
        };
        let Some(n) = phrases.iter().filter(fits).map(|p| p.len()).max() else {
            return false;
        };
        i += n;
    }
    !words.is_empty()
}

/// How many words open `lower` by asking whether a request would be a burden: "would it be
/// awfully tiresome to …", "would it be frightfully inconvenient to …", "would it be possible
/// to …" (a fifty-fourth author) — "would"/"will"/"could"/"is" "it (be)", at most three words
/// of burden or ease, then "to". What follows is the request.
fn burden_asked(lower: &[String]) -> Option<usize> {
    let w = |i: usize| lower.get(i).map(String::as_str);
    if !matches!(w(0), Some("would" | "will" | "could" | "is")) || w(1) != Some("it") {
        return None;
    }
    let from = if w(2) == Some("be") { 3 } else { 2 };
    let to = (from..(from + 4).min(lower.len())).find(|&i| w(i) == Some("to"))?;
    let between = &lower[from..to];
    let burden = |x: &str| {
        matches!(
            x,
            "awfully"
                | "terribly"
                | "frightfully"
                | "too"
                | "very"
                | "much"
                | "tiresome"
                | "inconvenient"
                | "possible"
                | "trouble"
                | "bother"
                | "difficult"
                | "hard"
                | "okay"
                | "ok"
                | "alright"
                | "all"
                | "right"
        )
    };
    // "is it okay to delete notes.txt?", "is it hard to rebuild the index?" ask about the act;
    // only "is it possible to …" asks for it.
    let is_asks = w(0) != Some("is") || between.iter().all(|x| x == "possible");
    (!between.is_empty() && between.iter().all(|x| burden(x)) && is_asks && to + 1 < lower.len()).then_some(to + 1)
}

/// Drops openings and closings, repeatedly ("ok so could you please …").
fn strip_edges(words: &mut Vec<Word>) {
    loop {
        let lower: Vec<String> = words.iter().map(|w| w.0.to_lowercase()).collect();
        let mut changed = false;
        if let Some(n) = burden_asked(&lower) {
            words.drain(..n);
            continue;
        }
        for open in OPENINGS {
            // Only when something follows: "ok" alone is an answer, not an opening.
            if lower.len() > open.len() && lower.iter().zip(open.iter()).all(|(a, b)| a == b) {
                words.drain(..open.len());
                changed = true;
                break;
            }
        }
        if !changed {
            let lower: Vec<String> = words.iter().map(|w| w.0.to_lowercase()).collect();
            // The longest that ends the words ("thank you most kindly", not only "kindly").
            let ends_with = |close: &&[&str]| {
                let n = close.len();
                lower.len() > n && lower[lower.len() - n..].iter().zip(close.iter()).all(|(a, b)| a == b)
            };
            if let Some(n) = closings().filter(ends_with).map(<[&str]>::len).max() {
                words.truncate(words.len() - n);
                changed = true;
            }
        }
        if !changed {
            // "please" in the middle is politeness too.
            let before = words.len();
            if words.len() > 1 {
                let mut kept: Vec<Word> = Vec::with_capacity(words.len());
                for (w, after) in words.drain(..) {
                    if !w.eq_ignore_ascii_case("please") {
                        kept.push((w, after));
                    } else if let Some(last) = kept.last_mut() {
                        last.1 = last.1.max(after);
                    }
                }
                *words = kept;
            }
            if words.len() == before {
                return;
            }
        }
    }
}

/// Joins the spoken spellings of paths: "notes dot t x t" → "notes.txt", "taxes slash 2021" →
/// "taxes/2021", "shopping underscore list" → "shopping_list", "old. log" → "old.log".
fn join_paths(said: &[Word]) -> Vec<Word> {
    // The words alone, for looking ahead; a joined word ends a sentence where its last part did.
    let words: Vec<&str> = said.iter().map(|(w, _)| w.as_str()).collect();
    let mut out: Vec<Word> = vec![];
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let lower = w.to_lowercase();
        let prev_is_name = out.last().is_some_and(|p| is_name(&p.0));
        // "old." "log": whisper heard the pause before the extension as a full stop. The
        // punctuation is gone by now, so only a known extension right after counts, and only
        // when the original had the dot (the word itself ends the name).
        if prev_is_name && matches!(lower.as_str(), "dot" | "point") && i + 1 < words.len() {
            // The extension: one word, or letters said one by one ("t x t").
            let mut j = i + 1;
            let mut ext = String::new();
            while j < words.len()
                && words[j].chars().count() == 1
                && words[j].chars().all(|c| c.is_ascii_alphanumeric())
                // "warranty dot m d I want it": the pronoun after a whole extension is the next
                // sentence's first word, not a third letter ("mdi").
                && !(words[j] == "I"
                    && KNOWN_EXTENSIONS.contains(&ext.as_str())
                    && !KNOWN_EXTENSIONS.contains(&format!("{ext}i").as_str()))
            {
                ext.push_str(&words[j].to_lowercase());
                j += 1;
            }
            if ext.len() < 2 {
                ext.clear();
                j = i + 1;
                if is_extension(words[j]) && !FUNCTION_WORDS.contains(&words[j].to_lowercase().as_str()) {
                    ext = words[j].to_lowercase();
                    j += 1;
                }
            }
            if lower == "point" && !KNOWN_EXTENSIONS.contains(&ext.as_str()) {
                ext.clear();
            }
            if !ext.is_empty() {
                let prev = out.pop().unwrap_or_default().0;
                out.push((format!("{prev}.{ext}"), said[j - 1].1));
                i = j;
                continue;
            }
        }
        if prev_is_name
            && let Some(next) = words.get(i + 1)
            && is_name(next)
        {
            let joiner = match lower.as_str() {
                "slash" | "/" => Some("/"),
                "underscore" => Some("_"),
                "dash" | "hyphen" => Some("-"),
                _ => None,
            };
            if let Some(j) = joiner {
                let prev = out.pop().unwrap_or_default().0;
                out.push((format!("{prev}{j}{next}"), said[i + 1].1));
                i += 2;
                continue;
            }
        }
        out.push((w.to_string(), said[i].1));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn sentences_are_kept_apart_though_their_punctuation_is_gone() {
        use super::read;
        let r = read("Might you find five documents on pottery? I have not the stamina for more.");
        // "Might you" only asks (a fifty-fourth author's opening).
        assert_eq!(r.text, "find five documents on pottery I have not the stamina for more");
        assert_eq!(r.sentences(), [(0, 5), (5, 12)]);
        // A name's own dot ends nothing; a spoken path joined across words ends where its last
        // part did; a filler or "please" before the stop hands it to the word before.
        assert_eq!(read("hash notes.txt and budget.xlsx").sentences(), [(0, 4)]);
        assert_eq!(read("read notes dot t x t. then hash it").sentences(), [(0, 2), (2, 5)]);
        assert_eq!(read("scan Letters um. hash it please. then list it").sentences(), [(0, 2), (2, 4), (4, 7)]);
        assert_eq!(read("what is this...   so weird!").sentences(), [(0, 3), (3, 5)]);
        assert!(read("").sentences().is_empty());
    }

    #[test]
    fn what_was_quoted_is_kept_though_the_marks_are_gone() {
        use super::read;
        let r = read("swap \"Purple\" for \"bronze\" - client rebranded");
        assert_eq!(r.quoted, ["purple", "bronze"]);
        assert!(r.words.iter().all(|w| !w.contains('"')));
        assert_eq!(read("replace “old pricing,” with “new”").quoted, ["old pricing", "new"]);
        // An unclosed quote, or an empty one, is no quotation.
        assert!(read("replace \"old with new").quoted.is_empty());
        assert_eq!(read("\"\" and \"ok\"").quoted, ["ok"]);
    }

    #[test]
    fn every_pause_is_kept_where_a_clause_end_is_not() {
        use super::read;
        // "sort" opens no clause the reading knows, yet the comma parts a statement from a request.
        let r = read("Clients is a mess, sort it out");
        assert_eq!(r.pauses, [false, false, false, true, false, false, false]);
        assert!(!r.clauses.contains(&true));
    }

    #[test]
    fn a_clause_ends_at_a_pause_only_where_a_new_clause_opens() {
        use super::read;
        let r = read("search for origami, I don't want a long list");
        assert_eq!(r.clauses, [false, false, true, false, false, false, false, false, false]);
        assert!(r.ends_clause(2) && !r.ends_clause(1));
        // A list's commas, a pause before a name or the reading's end, and no pause at all.
        assert!(!read("search for bread, butter and jam").clauses.contains(&true));
        assert!(!read("Suggest, quarantine, Lectures, slash summer").clauses.contains(&true));
        assert!(!read("search for origami I don't want more").clauses.contains(&true));
        assert_eq!(read("search for origami,").clauses, [false, false, false]);
        // "please" and fillers hand their pause to the word before; a full stop is a sentence.
        assert!(read("about origami please, you know").clauses[1]);
        assert!(read("about origami um, would you").clauses[1]);
        let r = read("about origami. I want more");
        assert!(r.ends[1] && !r.clauses[1]);
    }

    #[test]
    fn texting_shorthand_is_spelled_out_and_punctuation_kept() {
        use super::spelled_out;
        assert_eq!(spelled_out("can u list Letters pls"), "can you list Letters please");
        assert_eq!(spelled_out("swap walnut w cedar in notes.txt"), "swap walnut with cedar in notes.txt");
        // What broke (a twenty-first author's): "replace the word octopus w/ nineteen in that
        // file …" read "with/", and no replacement was found.
        assert_eq!(
            spelled_out("replace octopus w/ nineteen, w/o asking"),
            "replace octopus with nineteen, without asking"
        );
        assert_eq!(spelled_out("aight move em like u said"), "alright move them like you said");
        // Punctuation said as a word (a fifty-second author), but not a mark named.
        assert_eq!(
            spelled_out("um replace tuesday with bronze comma in Clients/raw/wishlist.md period"),
            "um replace tuesday with bronze, in Clients/raw/wishlist.md."
        );
        assert_eq!(spelled_out("search for beekeeping comma only in flyers"), "search for beekeeping, only in flyers");
        assert_eq!(spelled_out("show me it period thanks"), "show me it. thanks");
        assert_eq!(spelled_out("add a comma after walnut in notes.txt"), "add a comma after walnut in notes.txt");
        assert_eq!(spelled_out("what's the limitation period for claims"), "what's the limitation period for claims");
        assert_eq!(spelled_out("which period is it in"), "which period is it in");
        assert_eq!(spelled_out("find my notes on the Jurassic period"), "find my notes on the Jurassic period");
        assert_eq!(
            spelled_out("replace the semicolon with comma in notes.txt"),
            "replace the semicolon with comma in notes.txt"
        );
        assert_eq!(spelled_out("search for oxford comma"), "search for oxford comma");
        assert_eq!(spelled_out("what is in notes.txt question mark"), "what is in notes.txt?");
        // After an ordinary word, only where the sentence was dictated with a comma too.
        assert_eq!(spelled_out("is that right question mark"), "is that right question mark");
        assert_eq!(spelled_out("ok comma is that right question mark"), "ok, is that right?");
        // A slipped letter (a fiftieth author), but not in quotes or beside its right spelling.
        assert_eq!(spelled_out("serch the libary, pleese"), "search the library, pleese");
        assert_eq!(spelled_out("Libary needs a scan"), "Libary needs a scan");
        assert_eq!(spelled_out("find \"old libary\" in notes.txt"), "find \"old libary\" in notes.txt");
        assert_eq!(spelled_out("replace libary with library in notes.txt"), "replace libary with library in notes.txt");
        assert_eq!(spelled_out("find \"libary\" in notes.txt"), "find \"libary\" in notes.txt");
        // "yeet transcript.json rn" was read as a request to read it.
        assert_eq!(spelled_out("yeet transcript.json rn"), "throw away transcript.json right now");
        assert_eq!(spelled_out("move it... nvm actually dont"), "move it... never mind actually dont");
        // What broke (a thirty-second author): "typo in there, tuesday shld be bronze" found no
        // edit.
        assert_eq!(spelled_out("tuesday shld be bronze"), "tuesday should be bronze");
        assert_eq!(spelled_out("ngl, r ur files ok? lol."), "are your files ok?.");
        // What broke (a forty-fourth author, writing Scots): the listing's question, the edit's
        // "for" and the rename's "to" went unread.
        assert_eq!(spelled_out("Whit's in Podcasts the noo?"), "what's in Podcasts the now?");
        assert_eq!(spelled_out("swap the word walnut fur thursday"), "swap the word walnut for thursday");
        assert_eq!(spelled_out("rename agenda.jpg tae scratch.pdf"), "rename agenda.jpg to scratch.pdf");
        assert_eq!(spelled_out("dinnae dae it yet"), "don't do it yet");
        // What broke (a forty-eighth author, writing Pidgin): the listing, the quarantine and
        // the edit went unread.
        assert_eq!(
            spelled_out("abeg make you show me wetin dey for Clients? just look am, no touch anything"),
            "please please show me what is in Clients? just look it, don't touch anything"
        );
        assert_eq!(spelled_out("comot agenda.jpg from my way now now"), "get rid of agenda.jpg from my way now");
        assert_eq!(spelled_out("e don do, comot am now"), "it has do, get rid of it now");
        assert_eq!(
            spelled_out("make plan to shift guest_list.zip go Payslips, no move am yet o"),
            "make plan to shift guest_list.zip go Payslips, don't move it yet"
        );
        assert_eq!(spelled_out("na wa, plenty files. any of dem be twin?"), "plenty files. any of them be twin?");
        assert_eq!(spelled_out("e suppose be linen"), "it should be linen");
        // The same words in English, and the Scots "o", stay.
        assert_eq!(spelled_out("I am sure, am I allowed at 9 am?"), "I am sure, am I allowed at 9 am?");
        assert_eq!(spelled_out("no, move it. no change needed"), "no, move it. no change needed");
        assert_eq!(spelled_out("get rid o the batch"), "get rid of the batch");
        assert_eq!(spelled_out("hash notes dot j s o n"), "hash notes dot j s o n");
        // A capital inside the sentence is a name's: a folder called Fur stays.
        assert_eq!(spelled_out("scan Fur and tae.txt"), "scan Fur and tae.txt");
        // A name is not shorthand: upper case, or inside a word or a path.
        assert_eq!(spelled_out("search code in R"), "search code in R");
        assert_eq!(spelled_out("open u/notes.txt and run.txt"), "open u/notes.txt and run.txt");
        assert_eq!(spelled_out("café über — ok"), "café über — ok");
        // What broke: "playlist dot j s o n" became "playlist dot j s o and", "dot p n g" "p and g".
        assert_eq!(spelled_out("hash playlist dot j s o n for me"), "hash playlist dot j s o n for me");
        assert_eq!(spelled_out("hash journal dot p n g"), "hash journal dot p n g");
        assert_eq!(spelled_out("open notes dot r"), "open notes dot r");
        assert_eq!(spelled_out("gonna clean the kitchen"), "gonna clean the kitchen");
        // Letters that follow no "dot" are words: "r u" is "are you".
        assert_eq!(spelled_out("how r u doing"), "how are you doing");
        assert_eq!(spelled_out("sizes + hashes pls"), "sizes and hashes please");
        assert_eq!(spelled_out("open c++ notes.txt"), "open c++ notes.txt");
        assert_eq!(spelled_out("swap walnut w a nut in notes.txt"), "swap walnut with a nut in notes.txt");
        assert_eq!(
            spelled_out("save the photo, u know, to Pictures n Letters"),
            "save the photo, you know, to Pictures and Letters"
        );
    }

    #[test]
    fn a_spanish_speakers_words_for_folder_and_file_are_read_as_them() {
        // What broke (a fifty-sixth author): "carpeta" named no folder ("what is inside the
        // carpeta Podcasts" searched for it), and "archive" for a file was no file ("make me the
        // hash of that same archive" asked which file).
        assert_eq!(spelled_out("what is inside the carpeta Podcasts"), "what is inside the folder Podcasts");
        assert_eq!(spelled_out("only in the carpet Flyers"), "only in the folder Flyers");
        assert_eq!(spelled_out("make me the hash of that same archive."), "make me the hash of that same file.");
        assert_eq!(spelled_out("what type of archive is agenda.jpg"), "what type of file is agenda.jpg");
        assert_eq!(spelled_out("Uy, so many archives."), "Uy, so many files.");
        assert_eq!(spelled_out("open the archive notes.txt"), "open the file notes.txt");
        assert_eq!(spelled_out("is the index still actual for todo.md"), "is the index still current for todo.md");
        assert_eq!(spelled_out("hash it por favor, gracias"), "hash it please, thanks");
        // The English words stay: the carpet, the verb, the compaction's noun, the real thing.
        assert_eq!(spelled_out("I spilled coffee on the carpet"), "I spilled coffee on the carpet");
        assert_eq!(spelled_out("archive the folder Flyers"), "archive the folder Flyers");
        assert_eq!(spelled_out("pack Flyers into an archive"), "pack Flyers into an archive");
        assert_eq!(spelled_out("the actual file is notes.txt"), "the actual file is notes.txt");
    }

    #[test]
    fn speech_spellings_are_written_out() {
        // What broke (a fifty-seventh author): "thru" said no place to look, "oughta be called"
        // no new name.
        assert_eq!(
            spelled_out("dig thru Photos/old for stuff on mosaic"),
            "dig through Photos/old for stuff on mosaic"
        );
        assert_eq!(spelled_out("Flyers oughta be called scratch.md"), "Flyers ought to be called scratch.md");
    }

    use super::*;

    fn r(s: &str) -> String {
        read(s).text
    }

    #[test]
    fn spoken_paths_are_written_back() {
        for (said, want) in [
            ("hash notes dot t x t", "hash notes.txt"),
            ("hash notes dot txt", "hash notes.txt"),
            ("Quarantine old dot log.", "Quarantine old.log"),
            ("scan taxes slash 2021", "scan taxes/2021"),
            ("quarantine docs slash old dot log", "quarantine docs/old.log"),
            ("read shopping underscore list dot m d", "read shopping_list.md"),
            ("hash Downloads/a.pdf.", "hash Downloads/a.pdf"),
            ("move report dot PDF, please", "move report.pdf"),
            ("read invoice dash 0412 dot pdf", "read invoice-0412.pdf"),
            ("pack it into a tar dot gz", "pack it into a tar.gz"),
        ] {
            assert_eq!(r(said), want, "{said}");
        }
    }

    #[test]
    fn the_pronoun_after_a_spelt_extension_is_no_letter_of_it() {
        // What broke (authors' dev): "… in photos slash warranty dot m d I want it to say linen
        // instead" read "warranty.mdi want it", and no file was named.
        assert_eq!(
            r("where it says walnut in photos slash warranty dot m d I want it to say linen"),
            "where it says walnut in photos/warranty.md I want it to say linen"
        );
        assert_eq!(r("read notes dot t x t I think"), "read notes.txt I think");
        // Letters said in capitals are still letters, "I" among them where the extension goes on.
        assert_eq!(r("hash setup dot M S I"), "hash setup.msi");
        assert_eq!(r("hash notes dot T X T"), "hash notes.txt");
    }

    #[test]
    fn politeness_between_commas_or_at_the_end_is_dropped() {
        for (said, want) in [
            ("I'd like you to remember, if you would, that the code is 12", "remember that the code is 12"),
            ("search for pottery for me, thank you so much", "search for pottery"),
            ("scan Letters, dear", "scan Letters"),
            ("scan Letters if it isn't too much trouble", "scan Letters"),
            // A fifty-fourth author's: a request asked as a burden, a doubt or a permission, and
            // a closing that opens its sentence.
            (
                "Would it be awfully tiresome to search the library for anything touching on beekeeping? Thank you.",
                "search the library for anything touching on beekeeping",
            ),
            ("would it be possible to scan Letters", "scan Letters"),
            (
                "If it's not too much bother, one might perhaps start the index over afresh. Thank you most kindly.",
                "start the index over afresh",
            ),
            ("I don't suppose you could give me its content hash as well", "give me its content hash as well"),
            ("Might you hunt them out for me, if it's not too much bother?", "hunt them out"),
            ("I'm content. If it's not too much bother, do put it into effect.", "I'm content do put it into effect"),
        ] {
            assert_eq!(r(said), want, "{said}");
        }
        // Not a question about the thing itself.
        assert_eq!(r("would it be a duplicate of notes.txt"), "would it be a duplicate of notes.txt");
        assert_eq!(r("is it okay to delete notes.txt"), "is it okay to delete notes.txt");
        assert_eq!(r("is it possible to scan Letters"), "scan Letters");
        // Inside a clause, or what a clause is about, they stay.
        for said in ["save a note saying thanks to Bob", "read the file dear john.txt"] {
            assert_eq!(r(said), said, "{said}");
        }
        // A sentence of nothing else keeps its words.
        assert_eq!(r("thank you, dear"), "thank you");
    }

    #[test]
    fn ordinary_uses_of_dot_and_slash_are_left_alone() {
        for said in ["connect the dots", "dot your i's", "a slash at the end", "the dot is here"] {
            assert_eq!(r(said), said);
        }
        assert_eq!(r("dot"), "dot");
        assert_eq!(r(""), "");
    }

    #[test]
    fn fillers_and_politeness_go_but_a_lone_word_stays() {
        assert_eq!(r("um what's in my invoices folder"), "what's in my invoices folder");
        assert_eq!(r("hey smart, could you please scan Recipes for me"), "scan Recipes");
        assert_eq!(r("ok so uh apply the fix"), "apply the fix");
        assert_eq!(r("yes, apply those moves"), "apply those moves");
        assert_eq!(r("hmm let me think"), "let me think");
        assert_eq!(r("ok"), "ok");
        assert_eq!(r("thank you"), "thank you");
        assert_eq!(r("checksum budget please"), "checksum budget");
    }
}
