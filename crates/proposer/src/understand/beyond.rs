//! Requests no tool serves: what a person asks of any desktop assistant that SMART cannot do.
//!
//! The ranking always has a best tool, and for a request that fits none the small model's
//! habit is a tool that takes no arguments — the status report — because nothing in the
//! sentence can contradict it: "set an alarm for 7am" ranked `orbit.get_context` 0.99 with a
//! call at 0.44, "send an email to my boss saying I'll be late" 0.76 at 0.35, both well above
//! the least chance of a call ([`super::Thresholds::best_call`]), while real status questions
//! score as low as 0.16 ("whats your current status"), so no threshold tells them apart.
//!
//! What does tell them apart is a word for a thing SMART has no tool for at all — mail, alarms,
//! the weather, music, a calendar. Such a word, outside the names of files and folders and not
//! negated, turns a best tool that takes nothing from the sentence into a plain reply saying so
//! ("translate hello into spanish" ranked a search for stale documents in the working folder).
//! A tool that does take something from the sentence is left to the rest of understanding
//! ("remember that the plumber's email is …" is a note; "search for the email from the bank"
//! a search), and so is a tool the person cued by its own words ("what's the status of my
//! calendar folder").
//!
//! Except when the words are an act, a verb with its object ([`UNSERVED_ACTS`]): "send an email
//! to my client with agenda.zip attached" proposed reading agenda.zip, "remind me at five
//! o'clock to call the agency" the status report. Sending, setting an alarm, being reminded,
//! translating have no other sense here, so whatever the sentence names, such an act is
//! answered with the reply — unless the person cued the tool ("remember that I have to send an
//! email to the bank" is a note).
//!
//! Some acts are said by their shape rather than a phrase: a sentence that opens by reaching a
//! person ("text jake that I'm running late", "call the butter supplier and tell them…"), or
//! printing with paper in the sentence ("print quote.md double-sided, two copies"). Such an act
//! is also no question about files: "Which file do you mean?" is no answer to a text message.
//!
//! And the status report itself, the model's answer to whatever it cannot place ("how long
//! should I keep old bank statements for?" ranked it 0.99 with a call at 0.91), is proposed only
//! when some word asks about SMART's situation ([`unasked_status`]); otherwise there is no call.

use super::args::{Filled, Recipe, recipe};
use super::cues::{CUES, Said};
use super::decide::Understood;
use super::mentions::Mention;
use super::reading::Reading;

/// Words for what SMART has no tool for, and how a reply names it. Only words whose every
/// common sense is outside the tools: not "text" (a text file), "call" (calling a tool),
/// "message" (a commit message), "play", "song" ("how much space do my songs take"), or
/// "remind" ("remind me which folders you can see").
pub const UNSERVED: &[(&str, &str)] = &[
    ("email", "email"),
    ("emails", "email"),
    ("e-mail", "email"),
    ("alarm", "alarms"),
    ("alarms", "alarms"),
    ("timer", "timers"),
    ("reminder", "reminders"),
    ("text message", "messages"),
    ("weather", "the weather"),
    ("forecast", "the weather"),
    ("music", "music"),
    ("playlist", "music"),
    ("news", "the news"),
    ("scanner", "scanners"),
    ("printer", "printers"),
    ("heating", "smart home devices"),
    ("thermostat", "smart home devices"),
    ("speaker", "music"),
    ("speakers", "music"),
    ("online", "the web"),
    ("internet", "the web"),
    ("website", "the web"),
    ("browser", "the web"),
    ("wifi", "network settings"),
    ("wi-fi", "network settings"),
    ("bluetooth", "device settings"),
    ("translate", "translations"),
    ("calendar", "a calendar"),
    ("appointment", "a calendar"),
    ("joke", "jokes"),
    ("telly", "the TV"),
    ("tv", "the TV"),
    ("television", "the TV"),
];

/// Acts no tool does, said as a verb with its object: answered with the reply whatever else the
/// sentence names. "remind me" is one unless a question follows it ([`QUESTION_WORDS`]).
/// Booking, ordering, playing and calling are said with what follows them, since the bare
/// words have other senses here ("book" a noun, "the order of the files", "call" a tool).
pub const UNSERVED_ACTS: &[(&str, &str)] = &[
    ("send an email", "email"),
    ("send an e-mail", "email"),
    ("send a mail", "email"),
    ("send a text", "messages"),
    ("send a message", "messages"),
    ("set an alarm", "alarms"),
    ("set a timer", "timers"),
    ("set a reminder", "reminders"),
    ("remind me", "reminders"),
    ("translate", "translations"),
    ("book a", "bookings"),
    ("book an", "bookings"),
    ("book me", "bookings"),
    // "print off contacts.docx for us would ya" (a fifty-seventh author): "print off" is paper's.
    ("print off", "printing"),
    ("order some", "shopping"),
    ("order more", "shopping"),
    ("order a", "shopping"),
    ("order an", "shopping"),
    ("order me", "shopping"),
    ("buy", "shopping"),
    ("play some", "music"),
    ("put on some", "music"),
    ("call my", "phone calls"),
    ("call mom", "phone calls"),
    ("call dad", "phone calls"),
    ("turn on the", "smart home devices"),
    ("turn off the", "smart home devices"),
    ("play something", "music"),
    ("play me", "music"),
    ("play a song", "music"),
    ("search online", "the web"),
    ("look online", "the web"),
    ("search the web", "the web"),
    ("search the internet", "the web"),
    ("to my email", "email"),
    ("by email", "email"),
    ("email it", "email"),
    ("with the scanner", "scanners"),
    ("on the scanner", "scanners"),
    ("patch me through", "phone calls"),
    ("put me through", "phone calls"),
    ("how do you spell", "spelling"),
    ("how do i spell", "spelling"),
    ("how to spell", "spelling"),
    ("definition of", "a dictionary"),
    ("synonym for", "a dictionary"),
    ("synonyms for", "a dictionary"),
    ("chmod", "file permissions"),
    ("write-protect", "file permissions"),
    ("write protect", "file permissions"),
    // "Kindly schedule a conference call with the client for Tuesday", "convert wishlist.md to
    // PDF for e-filing" (a forty-second author).
    ("schedule a", "a calendar"),
    ("schedule an", "a calendar"),
    ("conference call", "phone calls"),
    ("to pdf", "file conversion"),
    ("into pdf", "file conversion"),
    ("to a pdf", "file conversion"),
    ("into a pdf", "file conversion"),
    ("as a pdf", "file conversion"),
];

/// Making a file read-only: "read-only" (or "read only") with a verb of making a few words
/// before it ("make todo.md read-only so the grandchildren can't spoil it"). Not the words
/// alone: "read only the first page" reads, "are you in read-only mode" asks about SMART.
fn made_read_only(lower: &[String]) -> bool {
    let plain = |i: usize| super::cues::plain(&lower[i]);
    (0..lower.len()).any(|i| {
        let said = matches!(plain(i).as_str(), "read-only" | "readonly")
            || (plain(i) == "read" && i + 1 < lower.len() && plain(i + 1) == "only");
        said && (i.saturating_sub(5)..i).any(|j| matches!(plain(j).as_str(), "make" | "set" | "mark" | "turn"))
    })
}

/// Drives and devices outside the allowed folders: copying or moving something onto one ("copy
/// Photos/old onto my memory stick") is no tool's; only with such a verb, since the device may
/// itself be an allowed folder to look at.
const DEVICES: &[&str] = &[
    "memory stick",
    "usb stick",
    "usb drive",
    "usb key",
    "thumb drive",
    "flash drive",
    "pen drive",
    "external drive",
    "external hard drive",
    "external disk",
    "sd card",
    "memory card",
    "dvd",
];
const ONTO_A_DEVICE: &[&str] = &["copy", "transfer", "burn", "put", "move", "save", "back"];

/// Sending by mail said as a verb: only where a request's verb stands, first or after words
/// that ask ("please email agenda.jpg to my daughter", "could you email it to my boss"), since
/// "find the email to my boss" names one.
const MAILING: &[&str] = &["email", "e-mail", "mail"];
const BEFORE_A_VERB: &[&str] = &["please", "pls", "kindly", "just", "you", "u", "and", "then", "also", "now"];

/// Printing: "print" alone is how some people ask to see a file ("print the text of notes.txt"),
/// but with paper in the sentence it is the printer's ("print quote.md double-sided, two
/// copies").
const PRINTING: &[&str] = &["print", "printed", "printout", "print-out"];
const PAPER: &[&str] =
    &["copies", "copy", "double-sided", "single-sided", "paper", "printer", "a3", "a4", "a5", "colour", "color"];

/// Printing for someone else is the printer's too ("can u print journal.png for my teacher");
/// "print it for me" is how some people ask to see it.
const FOR_SOMEONE: &[&str] = &["my", "our", "his", "her", "their", "the"];

/// Sending or sharing a file to a person or an app: no tool sends anything anywhere ("send
/// agenda.png to my friend on discord" proposed reading it). A verb of sending with a person
/// ([`PEOPLE`]) after "to" or "with", or an app ([`APPS`]) anywhere. Not "send it to Letters",
/// which puts a file in a folder.
const SENDING: &[&str] = &["send", "sending", "share", "sharing", "forward", "upload", "uploading", "post"];
const PEOPLE: &[&str] = &[
    "friend",
    "friends",
    "mum",
    "mom",
    "dad",
    "boss",
    "teacher",
    "sister",
    "brother",
    "wife",
    "husband",
    "partner",
    "team",
    "colleague",
    "colleagues",
    "client",
    "clients",
    "family",
    "girlfriend",
    "boyfriend",
    "kids",
    "class",
    "manager",
    "accountant",
    "lawyer",
    "doctor",
    "editor",
    "publisher",
    "landlord",
    "agent",
    "tutor",
    "professor",
    "student",
    "students",
    "daughter",
    "son",
    "neighbour",
    "neighbor",
    "cousin",
    "aunt",
    "uncle",
];
const APPS: &[&str] = &[
    "discord",
    "whatsapp",
    "slack",
    "telegram",
    "instagram",
    "youtube",
    "tiktok",
    "facebook",
    "twitter",
    "messenger",
    "snapchat",
    "reddit",
    "teams",
    "zoom",
    "dropbox",
    "icloud",
    "onedrive",
];

/// Whether the sentence sends or shares something with a person or an app ([`SENDING`]), asked
/// as an act: a sending verb in a clause that tells when or why ("… before I send it to my son",
/// "so we can share it with the team") is the person's own plan, not the request.
fn sends_away(said: &Said, lower: &[String]) -> bool {
    let to_someone = lower.windows(3).any(|w| {
        matches!(w[0].as_str(), "to" | "with")
            && FOR_SOMEONE.contains(&w[1].as_str())
            && PEOPLE.contains(&w[2].trim_end_matches([',', '.', '!', '?']))
    });
    let asked_to_send = (0..lower.len()).any(|at| {
        let w = super::cues::plain(&lower[at]);
        (SENDING.contains(&w.as_str()) && !in_a_telling_clause(lower, at))
            || (MAILING.contains(&w.as_str())
                && (at == 0 || BEFORE_A_VERB.contains(&super::cues::plain(&lower[at - 1]).as_str())))
    });
    SENDING.iter().chain(MAILING).any(|v| said.has(v))
        && asked_to_send
        && (to_someone || APPS.iter().any(|a| said.has(a)))
}

/// Words that open a clause telling when or why something happens, when a subject follows them
/// ("before I", "once we", "so that I").
const TELLING_OPENERS: &[&str] =
    &["before", "after", "when", "once", "until", "till", "so", "because", "since", "while", "whenever", "then"];
const SUBJECTS: &[&str] = &["i", "we", "he", "she", "they", "i'll", "we'll", "i'm", "we're", "i've"];

/// Words that may stand between a clause's subject and its verb ("before I can send it", "so
/// that we finally share it").
const BETWEEN_SUBJECT_AND_VERB: &[&str] =
    &["can", "could", "will", "would", "may", "might", "must", "should", "then", "just", "finally", "also", "actually"];

/// Whether the word at `at` is the verb of a clause that a [`TELLING_OPENERS`] word and a subject
/// open: "before I send it", "so that I can share it". The reading has no commas, so the clause
/// is known by its opening right before the verb: in "once we are done send the notes" the
/// sending is asked for.
fn in_a_telling_clause(lower: &[String], at: usize) -> bool {
    let plain = |i: usize| super::cues::plain(&lower[i]);
    let mut i = at;
    while i > 0 && BETWEEN_SUBJECT_AND_VERB.contains(&plain(i - 1).as_str()) {
        i -= 1;
    }
    if i < 2 || !SUBJECTS.contains(&plain(i - 1).as_str()) {
        return false;
    }
    let opener = plain(i - 2);
    TELLING_OPENERS.contains(&opener.as_str()) || (opener == "that" && i >= 3 && plain(i - 3) == "so")
}

/// Words after "remind me" that make it a question: "remind me which folders I've given you".
const QUESTION_WORDS: &[&str] =
    &["which", "what", "what's", "whats", "where", "how", "who", "whether", "if", "why", "of"];

/// Verbs of acts no tool does, when a sentence opens with one: reaching a person ("text jake
/// that I'm running late", "call the butter supplier and tell them we need double"), paying,
/// installing, downloading, googling ("pay the water bill from the joint account", "install the
/// update for the printer driver"). Said first, they are the request; said later they may be
/// what a record keeps or a search looks for ("find the invoice where we pay the plumber",
/// "notes about google analytics").
const OPENING_ACTS: &[(&str, &str)] = &[
    ("pay", "payments"),
    // "book the ute in for a service tuesday" (a fifty-seventh author).
    ("book", "bookings"),
    ("install", "installing software"),
    ("reinstall", "installing software"),
    ("uninstall", "installing software"),
    ("download", "downloads"),
    ("google", "the web"),
    ("text", "messages"),
    ("txt", "messages"),
    ("message", "messages"),
    ("dm", "messages"),
    ("whatsapp", "messages"),
    ("call", "phone calls"),
    ("ring", "phone calls"),
    ("phone", "phone calls"),
    ("facetime", "phone calls"),
];

/// Words after an [`OPENING_ACTS`] verb that make it about files: "call it notes-old", "text files
/// only".
const THINGS: &[&str] = &[
    "it",
    "this",
    "that",
    "these",
    "those",
    "them",
    "everything",
    "all",
    "file",
    "files",
    "documents",
    "docs",
    "only",
];

/// What a sentence that opens on an act no tool does asks for ([`OPENING_ACTS`]), when it names
/// no file or folder and what follows the verb is no thing's pronoun ("call it notes-old"
/// renames).
fn opening_act(lower: &[String], mentions: &[Mention]) -> Option<&'static str> {
    let (verb, next) = (lower.first()?, lower.get(1)?);
    let what = OPENING_ACTS.iter().find(|(v, _)| v == verb)?.1;
    (mentions.is_empty() && !THINGS.contains(&next.as_str())).then_some(what)
}

/// Something the sentence asks for that no tool serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unserved {
    /// How the reply names it ("alarms", "email").
    pub what: &'static str,
    /// Said as an act ([`UNSERVED_ACTS`]): no tool answers it, whatever the sentence names.
    pub act: bool,
    /// The act's own words, when they are one of [`UNSERVED_ACTS`] ("search online").
    pub words: &'static str,
}

/// What the reading asks for that no tool serves, if anything: the first [`UNSERVED_ACTS`]
/// act, else the first [`UNSERVED`] word, outside the mentions, not the name of something that
/// exists (`is_name`) and not said as what not to do.
pub fn asked_for(reading: &Reading, mentions: &[Mention], is_name: &dyn Fn(&str) -> bool) -> Option<Unserved> {
    let said = Said::new(reading, mentions, is_name);
    let lower = reading.lower();
    let a_question_follows = |phrase: &str| {
        phrase == "remind me"
            && lower.windows(3).any(|w| w[0] == "remind" && w[1] == "me" && QUESTION_WORDS.contains(&w[2].as_str()))
    };
    UNSERVED_ACTS
        .iter()
        .find(|(phrase, _)| said.has(phrase) && !a_question_follows(phrase))
        .map(|(words, what)| Unserved { what, act: true, words })
        .or_else(|| opening_act(&lower, mentions).map(|what| Unserved { what, act: true, words: "" }))
        .or_else(|| {
            let has = |set: &[&str]| set.iter().any(|w| said.has(w));
            let for_someone = lower.windows(2).any(|w| w[0] == "for" && FOR_SOMEONE.contains(&w[1].as_str()));
            // "print todo.md for me make I give the customer" (a forty-eighth author): a
            // printout to hand to someone.
            let handed = lower.iter().any(|w| matches!(w.as_str(), "give" | "hand" | "handout" | "post"));
            (has(PRINTING) && (has(PAPER) || for_someone || handed)).then_some(Unserved {
                what: "printing",
                act: true,
                words: "",
            })
        })
        .or_else(|| sends_away(&said, &lower).then_some(Unserved { what: "sending files", act: true, words: "" }))
        .or_else(|| {
            let onto_a_device = DEVICES.iter().any(|d| said.has(d))
                && lower.iter().any(|w| ONTO_A_DEVICE.contains(&super::cues::plain(w).as_str()));
            onto_a_device.then_some(Unserved { what: "drives outside your allowed folders", act: true, words: "" })
        })
        .or_else(|| made_read_only(&lower).then_some(Unserved { what: "file permissions", act: true, words: "" }))
        .or_else(|| {
            UNSERVED.iter().find(|(word, _)| said.has(word)).map(|(_, what)| Unserved { what, act: false, words: "" })
        })
}

/// The plain reply instead of a call to `tool`, when the sentence asks for something no tool
/// serves, `tool` was not cued, and either it was asked as an act or `tool` takes nothing from
/// the sentence (it has no arguments, applies what an earlier turn prepared, or would act on
/// the working folder only because nothing was named: `fill`).
pub fn overrule(
    tool: &str,
    cued: &[&str],
    asked: Option<Unserved>,
    fill: &dyn Fn(&str) -> Filled,
) -> Option<Understood> {
    let Unserved { what, act, words } = asked?;
    // A record keeps words, whatever they ask of someone: "store in todos under key x that I
    // gotta call mom" is a note about a call, not one to make.
    if recipe(tool) == Some(Recipe::Record) && matches!(fill(tool), Filled::Args(_)) {
        return None;
    }
    let takes_nothing =
        recipe(tool) == Some(Recipe::Nothing) || matches!(fill(tool), Filled::Implied(_) | Filled::Defaulted(_));
    // A cue that is a word of the act itself is the act's ("search online for a backpack" cues
    // the search by its "search").
    let cue_in_act = CUES
        .iter()
        .filter(|(t, _)| *t == tool)
        .flat_map(|(_, phrases)| phrases.iter())
        .any(|p| words.split(' ').any(|w| w == p.trim_end_matches('*')));
    let cued = cued.contains(&tool) && !cue_in_act;
    ((act || takes_nothing) && !cued).then(|| cannot(what))
}

/// The plain reply instead of a question, when the sentence asks as an act for something no
/// tool serves: "text jake that I'm running late" is not answered by "Which file do you mean?".
pub fn instead_of_asking(asked: Option<Unserved>) -> Option<Understood> {
    asked.filter(|u| u.act).map(|u| cannot(u.what))
}

fn cannot(what: &str) -> Understood {
    Understood::Say {
        reply: format!(
            "I can't help with {what}: I work with the files in your allowed folders — finding, reading, tidying and changing them."
        ),
    }
}

/// Words a question about SMART's own situation is asked with: what the status report shows
/// (its stance, lease, layers, folders, tools, what is allowed) or asking where things stand.
/// Broader than the report's cues, which lift it; these only permit it.
const ABOUT_ITS_SITUATION: &[&str] = &[
    "status",
    "stance",
    "lease",
    "layer*",
    "frontier",
    "mode",
    "situation",
    "context",
    "state",
    "scope",
    "folder*",
    "tool*",
    "allow*",
    "permission*",
    // "What are you permitted to do right now?", "Sitrep, mister." (a thirty-eighth author).
    "permit*",
    "sitrep",
    "access",
    "able",
    "visible",
    "stand",
    "stands",
    "where we",
    "where things",
    "what can you",
    "what you can",
    // "where are we at with everything, give me the run down on your setup" (a fiftieth
    // author).
    "where are we",
    "your setup",
    "your set up",
    "run down",
    "rundown",
];

/// What the sentence asks for instead of a status report no word asked for: the best-ranked
/// tool the person's own words cue that can be called with what was said ("Could you start the
/// catalogue again from scratch" ranked the report 0.78 and the cued rebuild 0.09; "is what
/// you've got for portfolio.md still up to date" the report 0.54, the cued check of that file
/// 0.13). None when no cued tool can be called: then there is no call. Never the purge, which
/// only its own word asks for and which is never a stand-in.
pub fn cued_instead_of_status(
    ranking: &super::Ranking,
    cued: &[&str],
    fill: &dyn Fn(&str) -> Filled,
) -> Option<Understood> {
    ranking
        .tools
        .iter()
        .filter(|(t, _)| t != "orbit.get_context" && t != "quarantine.purge" && cued.contains(&t.as_str()))
        .find_map(|(t, _)| match fill(t) {
            Filled::Args(args) => Some(Understood::Call { tool: t.clone(), args }),
            // A tool that takes nothing: its cue is all the evidence there can be.
            Filled::Implied(args) if recipe(t) == Some(Recipe::Nothing) => {
                Some(Understood::Call { tool: t.clone(), args })
            }
            _ => None,
        })
}

/// Verbs that send a prepared change on its way ("push it through", "greenlight", "go
/// ahead"): not "do" or "make", which say anything ("the plan is to do it on Friday").
const SENDING_ON: &[&str] = &["push", "apply", "execute", "carry", "proceed", "commit", "ahead", "greenlight", "ship"];

/// What the sentence asks for instead of a status report no word asked for, when no cued tool
/// can stand in: carrying out what was prepared, when the sentence points at it and sends it
/// on its way — "greenlight on the latest diff - push it through to the file ASAP" ranked the
/// report 0.73 and applying the patch 0.10 (a thirty-fourth author).
pub fn applied_instead_of_status(reading: &Reading, fill: &dyn Fn(&str) -> Filled) -> Option<Understood> {
    let said = Said::new(reading, &[], &|_| false);
    if !SENDING_ON.iter().any(|w| said.has(w)) {
        return None;
    }
    super::args::RECIPES
        .iter()
        .filter(|(t, r)| matches!(r, Recipe::Apply(_)) && super::args::points_at_what_it_applies(reading, t))
        .find_map(|(t, _)| match fill(t) {
            Filled::Args(args) | Filled::Implied(args) => Some(Understood::Call { tool: (*t).to_string(), args }),
            _ => None,
        })
}

/// An edit said whole — a file, what to replace and with what — instead of a status report no
/// word asked for: "tuesday needs to become bronze in Clients/raw/wishlist.md, per legal. just
/// prep the diff for now" ranked the report 0.24 and the patch 0.19 (a thirty-fourth author).
/// No other tool's arguments are so plainly the sentence's own.
pub fn edit_instead_of_status(fill: &dyn Fn(&str) -> Filled) -> Option<Understood> {
    match fill("propose.patch") {
        Filled::Args(args) => Some(Understood::Call { tool: "propose.patch".into(), args }),
        _ => None,
    }
}

/// Whether `tool` is the status report that no word of the sentence asks for. The report takes
/// nothing from a sentence, and the small model gives it to whatever it cannot place: "how
/// long should I keep old bank statements for?" (a call at 0.91), "are you the same assistant
/// that's on my phone?". Every way the evals' authors asked for it used one of
/// [`ABOUT_ITS_SITUATION`]; without one, the answer is no call.
pub fn unasked_status(tool: &str, reading: &Reading, mentions: &[Mention], is_name: &dyn Fn(&str) -> bool) -> bool {
    let said = Said::new(reading, mentions, is_name);
    tool == "orbit.get_context" && !ABOUT_ITS_SITUATION.iter().any(|w| said.has(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::understand::read;

    fn no_names(_: &str) -> bool {
        false
    }

    fn fill(tool: &str) -> Filled {
        match tool {
            "infer.superseded_docs" => Filled::Defaulted(serde_json::json!({"path": "/r"})),
            "orbit.get_context" | "rebuild.index" => Filled::Implied(serde_json::json!({})),
            _ => Filled::Args(serde_json::json!({"query": "email"})),
        }
    }

    fn asked(s: &str) -> Option<&'static str> {
        asked_for(&read(s), &[], &no_names).map(|u| u.what)
    }

    fn word(what: &'static str) -> Option<Unserved> {
        Some(Unserved { what, act: false, words: "" })
    }

    #[test]
    fn a_prepared_change_pointed_at_and_sent_on_stands_in_for_an_unasked_report() {
        let fill = |tool: &str| match tool {
            "apply.patch" | "apply.move" => Filled::Implied(serde_json::json!({"proposal": "ab".repeat(32)})),
            _ => Filled::Missing(super::super::args::Missing::Words("what")),
        };
        let applied = |s: &str| {
            applied_instead_of_status(&read(s), &fill).map(|u| match u {
                Understood::Call { tool, .. } => tool,
                other => format!("{other:?}"),
            })
        };
        // What broke (a thirty-fourth author).
        assert_eq!(
            applied("greenlight on the latest diff - push it through to the file ASAP").as_deref(),
            Some("apply.patch")
        );
        assert_eq!(applied("ok ship the plan").as_deref(), Some("apply.move"));
        // Pointed at but not sent on, sent on but not pointed at, or sent on with a negation.
        assert_eq!(applied("the plan is to do it on friday"), None);
        assert_eq!(applied("push the button on the printer"), None);
        assert_eq!(applied("don't push that diff yet"), None);
    }

    #[test]
    fn words_for_what_no_tool_does_are_found_outside_names_and_negations() {
        assert_eq!(asked("set an alarm for 7am"), Some("alarms"));
        assert_eq!(asked("send an email to my boss saying I'll be late"), Some("email"));
        assert_eq!(asked("what's the weather like tomorrow?"), Some("the weather"));
        assert_eq!(asked("which folders are you allowed to touch right now"), None);
        // What broke: "remind me which folders I've given you access to" is a question.
        assert_eq!(asked("um remind me which folders I've given you access to"), None);
        assert_eq!(asked("don't email anyone"), None);
        assert_eq!(asked("remind me to call the dentist at 3"), Some("reminders"));
        assert_eq!(asked("um send a text to my sister saying I will be late"), Some("messages"));
        // A folder called News is a name, not a request for the news.
        assert_eq!(asked_for(&read("what's in news"), &[], &|w: &str| w == "news"), None);
        // What broke: "remind me to" only; the time came between.
        assert_eq!(asked("remind me at five o'clock to call the agency"), Some("reminders"));
        assert_eq!(asked("remind me what's in Taxes"), None);
        // What broke: "book me a table…" proposed the status report, "put on some lo-fi beats"
        // applying the last patch, "order more printer ink from amazon" a note.
        assert_eq!(asked("Book me a table for two at 8 tonight."), Some("bookings"));
        assert_eq!(asked("put on some lo-fi beats"), Some("music"));
        assert_eq!(asked("order more printer ink from amazon"), Some("shopping"));
        assert_eq!(asked("call my sister"), Some("phone calls"));
        // What broke (a fifteenth author): a sentence that opens by reaching a person.
        assert_eq!(asked("text jake that im running late"), Some("messages"));
        assert_eq!(asked("call the butter supplier and tell them we need double next week"), Some("phone calls"));
        assert_eq!(asked("can you ring the plumber"), Some("phone calls"));
        assert_eq!(asked("call it old-notes"), None);
        assert_eq!(asked("text files only, about the lease"), None);
        // A seventeenth author: printers, payments, the web, installing.
        assert_eq!(asked("print quote.md double-sided, two copies please"), Some("printing"));
        assert_eq!(asked("print the text of quote.md"), None);
        // A twenty-third author: a paper size.
        assert_eq!(asked("print me quote.md in A3 please"), Some("printing"));
        // A twenty-first author: printing for someone, sending to a person or an app.
        assert_eq!(asked("can u print journal.png for my teacher"), Some("printing"));
        // What broke (a fifty-seventh author): the file was read, and a search was made.
        assert_eq!(asked("print off journal.png for us would ya"), Some("printing"));
        assert_eq!(asked("book the ute in for a service tuesday"), Some("bookings"));
        assert_eq!(asked("print quote.md for me"), None);
        // What broke (a forty-eighth author): a printout to hand over was read out.
        assert_eq!(asked("print todo.md for me so I can give the customer"), Some("printing"));
        assert_eq!(asked("send agenda.png to my friend on discord"), Some("sending files"));
        assert_eq!(asked("share the budget with my accountant"), Some("sending files"));
        assert_eq!(asked("upload the clip to youtube"), Some("sending files"));
        assert_eq!(asked("send agenda.png to the Letters folder"), None);
        assert_eq!(asked("find the notes my friend sent"), None);
        // What broke (an eighteenth author, after the sending rule): the sending is what the
        // person will do after, told in a clause of its own, not asked of SMART.
        assert_eq!(
            asked(
                "please can you show me the files in my blueprints folder with the sizes, before I send it to my son"
            ),
            None
        );
        assert_eq!(asked("list the Letters folder so that I can share it with my team"), None);
        assert_eq!(asked("once we are done, send the notes to my team"), Some("sending files"));
        // A twenty-second author: posting to an editor, music asked for by what to play.
        assert_eq!(asked("Kindly post agenda.png to the editor of the Review"), Some("sending files"));
        assert_eq!(asked("Play me a little Bach, would you"), Some("music"));
        assert_eq!(asked("pay the water bill from the joint account today"), Some("payments"));
        assert_eq!(asked("search online for a cheap school backpack"), Some("the web"));
        assert_eq!(asked("install the update for the printer driver"), Some("installing software"));
        assert_eq!(asked("patch me through to the school office please"), Some("phone calls"));
        assert_eq!(asked("scan the report cards on the scanner upstairs"), Some("scanners"));
        // An eighteenth and a nineteenth author: scanning paper, mailing it, the TV.
        assert_eq!(asked("scan this paper with the scanner and send it to my email"), Some("email"));
        assert_eq!(asked("scan this paper with the scanner"), Some("scanners"));
        assert_eq!(asked("send notes.txt to my email"), Some("email"));
        assert_eq!(asked("Please record the snooker tonight on the telly, would you?"), Some("the TV"));
        assert_eq!(asked("scan the documents folder"), None);
        // Said later, the same verbs are what a search looks for.
        assert_eq!(asked("find the invoice where we pay the plumber"), None);
        assert_eq!(asked("find my notes about google analytics"), None);
        assert_eq!(asked("google the capital of portugal"), Some("the web"));
        assert_eq!(asked("store a note: text the landlord on friday"), None);
        assert_eq!(asked("sort the files in the order they were made"), None);
        assert_eq!(asked("find the book about birds"), None);
        // What broke (a twenty-seventh author): reading the file, a duplicates search of the
        // folder, a check of the file against the index, a stale-documents report.
        assert_eq!(asked("Please email agenda.jpg to my daughter."), Some("sending files"));
        assert_eq!(asked("could you email the notes to my boss"), Some("sending files"));
        assert_eq!(asked("find the email to my boss"), Some("email"));
        assert_eq!(
            asked("Copy photos slash old onto my memory stick, would you?"),
            Some("drives outside your allowed folders")
        );
        assert_eq!(asked("what's on the memory stick folder"), None);
        assert_eq!(
            asked("Could you make todo.md read-only so the grandchildren can't spoil it?"),
            Some("file permissions")
        );
        assert_eq!(asked("read only the first page of todo.md"), None);
        assert_eq!(asked("are you in read-only mode"), None);
        assert_eq!(asked("How do you spell accommodation? I always get it wrong."), Some("spelling"));
        assert_eq!(
            asked_for(&read("send an email to my client with agenda.zip attached"), &[], &no_names).map(|u| u.act),
            Some(true)
        );
        assert_eq!(asked_for(&read("search for the email from the bank"), &[], &no_names).map(|u| u.act), Some(false));
    }

    #[test]
    fn a_meeting_to_schedule_or_a_file_to_convert_is_asked_of_no_tool() {
        // What broke (a forty-second author): a search for "Tuesday at ten o'clock", and
        // reading the file to be converted.
        let asked = |s: &str| asked_for(&read(s), &[], &no_names).map(|u| u.what);
        assert_eq!(
            asked("Kindly schedule a conference call with the client for Tuesday at ten o'clock."),
            Some("a calendar")
        );
        assert_eq!(asked("Please convert wishlist.md to PDF for e-filing."), Some("file conversion"));
        assert_eq!(asked("move the scans to Photos"), None);
    }

    #[test]
    fn an_act_no_tool_does_is_a_reply_whatever_the_sentence_names() {
        let act = Some(Unserved { what: "email", act: true, words: "send an email" });
        // What broke: "send an email to my client with agenda.zip attached" → fs.read agenda.zip.
        assert!(matches!(overrule("fs.read", &[], act, &fill), Some(Understood::Say { .. })));
        // The same word, not an act: the search stands.
        assert_eq!(overrule("rag.search", &[], word("email"), &fill), None);
        // A tool the person cued: "remember that I have to send an email to the bank".
        assert_eq!(overrule("db.upsert", &["db.upsert"], act, &fill), None);
        // Unless the cue is the act's own word (a seventeenth author: "search online for a
        // cheap school backpack and order the blue one" → a search of the library).
        let web = Some(Unserved { what: "the web", act: true, words: "search online" });
        assert!(overrule("rag.search", &["rag.search"], web, &fill).is_some());
        // A record whose words the sentence gives, cued or not: what it asks of someone is
        // what to keep (a fifteenth author: "store in todos under key x that i gotta call mom").
        let calls = Some(Unserved { what: "phone calls", act: true, words: "call my" });
        assert_eq!(overrule("db.upsert", &[], calls, &fill), None);
        let no_record = |_: &str| Filled::Missing(super::super::Missing::Words("what to remember"));
        assert!(overrule("db.upsert", &[], calls, &no_record).is_some());
    }

    #[test]
    fn the_status_report_is_asked_for_in_words_about_the_situation() {
        let unasked = |s: &str| unasked_status("orbit.get_context", &read(s), &[], &no_names);
        // What broke (a seventeenth author): general questions got the status report.
        assert!(unasked("how long should I keep old bank statements for?"));
        assert!(unasked("are you the same assistant that's on my phone?"));
        for s in [
            "whats your current status",
            "uh hey where do we stand",
            "which folders am i even allowed in",
            "what mode are you in at the moment",
            "what are you actually able to do at the moment",
            "give me a situation report",
            "tell me where things stand right now",
            "what tools do u have access to",
            // A thirty-eighth author's.
            "Sitrep, mister. What are you permitted to do right now?",
            // A fiftieth author's.
            "where are we at with everything, give me the run down on your setup",
        ] {
            assert!(!unasked(s), "{s}");
        }
        // Only the report: other tools are not held to these words.
        assert!(!unasked_status("rebuild.index", &read("how long should I keep these"), &[], &no_names));
    }

    #[test]
    fn a_status_report_no_word_asked_for_gives_way_to_a_cued_tool_that_can_be_called() {
        let ranked = |tools: &[(&str, f32)]| super::super::Ranking {
            tools: tools.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(),
            p_call: 1.0,
            best_call: 1.0,
        };
        let fills = |tool: &str| match tool {
            "rag.validate_applicability" => Filled::Args(serde_json::json!({"ids": ["/r/portfolio.md"]})),
            "rebuild.index" | "orbit.get_context" => Filled::Implied(serde_json::json!({})),
            "quarantine.purge" => Filled::Implied(serde_json::json!({"batch": "0123456789abcdef"})),
            "infer.superseded_docs" => Filled::Defaulted(serde_json::json!({"path": "/r"})),
            _ => Filled::Missing(super::super::Missing::Words("what")),
        };
        // What broke (a nineteenth author's): the report no word asked for became no call, though
        // the sentence cued a tool it could call.
        let check = ranked(&[
            ("orbit.get_context", 0.54),
            ("infer.superseded_docs", 0.26),
            ("rag.validate_applicability", 0.13),
        ]);
        let cued = ["infer.superseded_docs", "rag.validate_applicability"];
        assert_eq!(
            cued_instead_of_status(&check, &cued, &fills),
            Some(Understood::Call {
                tool: "rag.validate_applicability".into(),
                args: serde_json::json!({"ids": ["/r/portfolio.md"]})
            })
        );
        let rebuild = ranked(&[("orbit.get_context", 0.78), ("rebuild.index", 0.09)]);
        assert!(matches!(
            cued_instead_of_status(&rebuild, &["rebuild.index"], &fills),
            Some(Understood::Call { tool, .. }) if tool == "rebuild.index"
        ));
        // Nothing cued, or only what cannot be called, or the purge: no call.
        assert_eq!(cued_instead_of_status(&rebuild, &[], &fills), None);
        assert_eq!(cued_instead_of_status(&check, &["infer.superseded_docs"], &fills), None);
        let purge = ranked(&[("orbit.get_context", 0.78), ("quarantine.purge", 0.2)]);
        assert_eq!(cued_instead_of_status(&purge, &["quarantine.purge"], &fills), None);
    }

    #[test]
    fn an_act_no_tool_does_is_no_question_about_files() {
        let asked = |s: &str| instead_of_asking(asked_for(&read(s), &[], &no_names));
        assert!(
            matches!(asked("text jake that im running late"), Some(Understood::Say { reply }) if reply.contains("messages"))
        );
        // A word, not an act, leaves the question: "search for the email" may name a file.
        assert_eq!(asked("where did I put the email from the bank"), None);
        assert_eq!(asked("which file is it"), None);
    }

    #[test]
    fn only_a_call_that_takes_nothing_from_the_sentence_is_overruled() {
        // What broke: "set an alarm for 7am" → orbit.get_context 0.99 with a call at 0.44.
        let status = "orbit.get_context";
        assert!(matches!(
            overrule(status, &[], word("alarms"), &fill),
            Some(Understood::Say { reply }) if reply.contains("alarms")
        ));
        // No such word: the status report stands ("which folders are you allowed to touch").
        assert_eq!(overrule(status, &[], None, &fill), None);
        // The person asked for the status by its own word.
        assert_eq!(overrule(status, &["orbit.get_context"], word("a calendar"), &fill), None);
        // A tool that takes something from the sentence is left to the rest of understanding.
        assert_eq!(overrule("rag.search", &[], word("email"), &fill), None);
        assert!(overrule("rebuild.index", &[], word("the news"), &fill).is_some());
        // What broke: "translate hello into spanish" → stale documents in the working folder.
        assert!(overrule("infer.superseded_docs", &[], word("translations"), &fill).is_some());
    }
}
