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

use super::args::{Filled, Recipe, recipe};
use super::cues::Said;
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
    ("translate", "translations"),
    ("calendar", "a calendar"),
    ("appointment", "a calendar"),
    ("joke", "jokes"),
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
];

/// Words after "remind me" that make it a question: "remind me which folders I've given you".
const QUESTION_WORDS: &[&str] =
    &["which", "what", "what's", "whats", "where", "how", "who", "whether", "if", "why", "of"];

/// Something the sentence asks for that no tool serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unserved {
    /// How the reply names it ("alarms", "email").
    pub what: &'static str,
    /// Said as an act ([`UNSERVED_ACTS`]): no tool answers it, whatever the sentence names.
    pub act: bool,
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
        .map(|(_, what)| Unserved { what, act: true })
        .or_else(|| UNSERVED.iter().find(|(word, _)| said.has(word)).map(|(_, what)| Unserved { what, act: false }))
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
    let Unserved { what, act } = asked?;
    // A record keeps words, whatever they ask of someone: "store in todos under key x that I
    // gotta call mom" is a note about a call, not one to make.
    if recipe(tool) == Some(Recipe::Record) && matches!(fill(tool), Filled::Args(_)) {
        return None;
    }
    let takes_nothing =
        recipe(tool) == Some(Recipe::Nothing) || matches!(fill(tool), Filled::Implied(_) | Filled::Defaulted(_));
    ((act || takes_nothing) && !cued.contains(&tool)).then(|| Understood::Say {
        reply: format!(
            "I can't help with {what}: I work with the files in your allowed folders — finding, reading, tidying and changing them."
        ),
    })
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
        Some(Unserved { what, act: false })
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
        assert_eq!(asked("sort the files in the order they were made"), None);
        assert_eq!(asked("find the book about birds"), None);
        assert_eq!(
            asked_for(&read("send an email to my client with agenda.zip attached"), &[], &no_names).map(|u| u.act),
            Some(true)
        );
        assert_eq!(asked_for(&read("search for the email from the bank"), &[], &no_names).map(|u| u.act), Some(false));
    }

    #[test]
    fn an_act_no_tool_does_is_a_reply_whatever_the_sentence_names() {
        let act = Some(Unserved { what: "email", act: true });
        // What broke: "send an email to my client with agenda.zip attached" → fs.read agenda.zip.
        assert!(matches!(overrule("fs.read", &[], act, &fill), Some(Understood::Say { .. })));
        // The same word, not an act: the search stands.
        assert_eq!(overrule("rag.search", &[], word("email"), &fill), None);
        // A tool the person cued: "remember that I have to send an email to the bank".
        assert_eq!(overrule("db.upsert", &["db.upsert"], act, &fill), None);
        // A record whose words the sentence gives, cued or not: what it asks of someone is
        // what to keep (a fifteenth author: "store in todos under key x that i gotta call mom").
        let calls = Some(Unserved { what: "phone calls", act: true });
        assert_eq!(overrule("db.upsert", &[], calls, &fill), None);
        let no_record = |_: &str| Filled::Missing(super::super::Missing::Words("what to remember"));
        assert!(overrule("db.upsert", &[], calls, &no_record).is_some());
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
