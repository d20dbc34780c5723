//! What an eval run measures, per mode: the right tool, the right call, the right paths, no call
//! when none was meant, schema validity and latency — and which cases missed, so a number is
//! never reported without the sentences behind it.

use crate::cases::{Case, matches, path_parts, paths_match};
use serde::Serialize;
use serde_json::Value;
use smart_kernel::Registry;
use std::collections::BTreeMap;

/// What one mode made of one case.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Answer {
    pub tool: Option<String>,
    pub args: Value,
    /// The reply when no call was proposed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// The reply is a clarifying question (the assistant saw two readings, or none).
    pub asked: bool,
    pub ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Spoken eval: what whisper heard, and its word error rate against what was said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heard: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wer: Option<f64>,
    /// Spoken eval: what a second hearing heard, when the first reading asked for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reheard: Option<String>,
    /// Spoken eval: the transcript as taken when a name weighed against the audio was clearly
    /// likelier than what whisper wrote (`smart_voice::weighed_names`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weighed: Option<String>,
    /// Spoken eval: every text weighed against the audio (what whisper wrote first) as (text,
    /// log-probability, tokens), so that `--replay-heard` chooses among them again.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<(String, f32, u32)>,
    /// Spoken eval: the request the proposers were given (the transcript with its heard names
    /// and paths put right), when it differs from what was heard.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_as: Option<String>,
    /// Spoken eval: whisper's mean token probability for what it heard.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    /// How the model ranked the tools (the chance of a call, the best tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranking: Option<smart_runtime::understanding::RankingView>,
}

impl Answer {
    pub fn right_tool(&self, c: &Case) -> bool {
        self.error.is_none() && self.tool == c.tool
    }

    /// The right tool with every expected argument.
    pub fn right_call(&self, c: &Case) -> bool {
        self.right_tool(c) && (c.tool.is_none() || matches(&c.args, &self.args))
    }
}

#[derive(Debug, Serialize)]
pub struct Score {
    pub mode: String,
    pub cases: usize,
    pub tool_accuracy: f64,
    /// Right tool and every expected argument.
    pub call_accuracy: f64,
    /// Of the right-tool proposals, those whose every expected argument matches.
    pub arg_accuracy: f64,
    /// Of the right-tool proposals whose tool takes paths, those that name exactly the right ones.
    pub path_accuracy: f64,
    pub path_cases: usize,
    pub schema_valid: f64,
    pub proposals: usize,
    /// "No call" as the positive class: of the answers without a call, how many were meant so.
    pub no_call_precision: f64,
    /// Of the cases meant to get no call, how many got none.
    pub no_call_recall: f64,
    /// Clarifying questions asked (each also counts as no call).
    pub asked: usize,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub errors: usize,
    /// Per expected tool: (cases, right tool, right call).
    pub per_tool: BTreeMap<String, (usize, usize, usize)>,
    /// Per expected tool, what was proposed instead (and how often).
    pub confusion: BTreeMap<String, BTreeMap<String, usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_wer: Option<f64>,
}

const NO_CALL: &str = "(no call)";

fn pct(n: usize, d: usize) -> f64 {
    if d == 0 { 100.0 } else { n as f64 * 100.0 / d as f64 }
}

pub fn percentile(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    v[(((v.len() - 1) as f64) * p).round() as usize]
}

pub fn score(mode: &str, cases: &[Case], answers: &[Answer], registry: &Registry) -> Score {
    let (mut tool_ok, mut call_ok, mut arg_n, mut arg_ok, mut path_n, mut path_ok) = (0, 0, 0, 0, 0, 0);
    let (mut proposals, mut valid, mut none_meant, mut none_got, mut none_right) = (0, 0, 0, 0, 0);
    let mut per_tool: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut confusion: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for (c, a) in cases.iter().zip(answers) {
        let want = c.tool.clone().unwrap_or_else(|| NO_CALL.into());
        let got = match (&a.error, &a.tool) {
            (Some(_), _) => "(error)".to_string(),
            (None, Some(t)) => t.clone(),
            (None, None) => NO_CALL.into(),
        };
        let entry = per_tool.entry(want.clone()).or_default();
        entry.0 += 1;
        if a.right_tool(c) {
            tool_ok += 1;
            entry.1 += 1;
        } else {
            *confusion.entry(want).or_default().entry(got).or_default() += 1;
        }
        if a.right_call(c) {
            call_ok += 1;
            entry.2 += 1;
        }
        if c.tool.is_some() && a.right_tool(c) {
            arg_n += 1;
            arg_ok += usize::from(matches(&c.args, &a.args));
            if !path_parts(&c.args).is_empty() {
                path_n += 1;
                path_ok += usize::from(paths_match(&c.args, &a.args));
            }
        }
        if c.tool.is_none() {
            none_meant += 1;
        }
        if a.tool.is_none() && a.error.is_none() {
            none_got += 1;
            none_right += usize::from(c.tool.is_none());
        }
        if let Some(t) = &a.tool {
            proposals += 1;
            valid += usize::from(registry.validate_args(t, &a.args).is_ok());
        }
    }
    let ms: Vec<f64> = answers.iter().map(|a| a.ms).collect();
    let wers: Vec<f64> = answers.iter().filter_map(|a| a.wer).collect();
    Score {
        mode: mode.to_string(),
        cases: cases.len(),
        tool_accuracy: pct(tool_ok, cases.len()),
        call_accuracy: pct(call_ok, cases.len()),
        arg_accuracy: pct(arg_ok, arg_n),
        path_accuracy: pct(path_ok, path_n),
        path_cases: path_n,
        schema_valid: pct(valid, proposals),
        proposals,
        no_call_precision: pct(none_right, none_got),
        no_call_recall: pct(none_right, none_meant),
        asked: answers.iter().filter(|a| a.asked).count(),
        p50_ms: percentile(&ms, 0.5),
        p90_ms: percentile(&ms, 0.9),
        errors: answers.iter().filter(|a| a.error.is_some()).count(),
        per_tool,
        confusion,
        mean_wer: (!wers.is_empty()).then(|| wers.iter().sum::<f64>() / wers.len() as f64),
    }
}

pub fn print(s: &Score) {
    println!(
        "{:<24} tool {:>5.1}%  call {:>5.1}%  args {:>5.1}%  paths {:>5.1}% (of {})  schema-valid {:>5.1}% ({} proposals)  no-call P {:>5.1}% R {:>5.1}%  asked {}  p50 {:>6.0} ms  p90 {:>6.0} ms  errors {}{}",
        s.mode,
        s.tool_accuracy,
        s.call_accuracy,
        s.arg_accuracy,
        s.path_accuracy,
        s.path_cases,
        s.schema_valid,
        s.proposals,
        s.no_call_precision,
        s.no_call_recall,
        s.asked,
        s.p50_ms,
        s.p90_ms,
        s.errors,
        s.mean_wer.map(|w| format!("  WER {:.1}%", w * 100.0)).unwrap_or_default()
    );
}

/// The per-tool table: cases, right tool, right call, and what was proposed instead.
pub fn print_table(s: &Score) {
    println!("  {:<28} {:>5} {:>6} {:>6}  instead", "expected", "cases", "tool", "call");
    for (tool, (n, t, c)) in &s.per_tool {
        let instead = s
            .confusion
            .get(tool)
            .map(|m| m.iter().map(|(k, v)| format!("{k}×{v}")).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        println!("  {tool:<28} {n:>5} {t:>6} {c:>6}  {instead}");
    }
}

/// Every case a mode got wrong, with what was wanted and what came.
pub fn print_misses(mode: &str, cases: &[Case], answers: &[Answer]) {
    println!("\n== misses: {mode}");
    for (c, a) in cases.iter().zip(answers) {
        if a.right_call(c) {
            continue;
        }
        let short = |v: &Value| v.to_string().replace(&c.root, "$ROOT");
        let got = match (&a.tool, &a.error) {
            (_, Some(e)) => format!("error: {e}"),
            (Some(t), None) => format!("{t} {}", short(&a.args)),
            (None, None) => {
                format!("{} {:?}", if a.asked { "asked" } else { "no call" }, a.reply.clone().unwrap_or_default())
            }
        };
        let want = c.tool.as_ref().map(|t| format!("{t} {}", short(&c.args))).unwrap_or_else(|| "no call".into());
        let heard = a.heard.as_ref().map(|h| format!("\n     heard {h:?}")).unwrap_or_default();
        let heard = match &a.weighed {
            Some(w) => format!("{heard}\n     weighed as {w:?}"),
            None => heard,
        };
        let heard = match &a.reheard {
            Some(again) => format!("{heard}\n     heard again {again:?}"),
            None => heard,
        };
        let heard = match &a.read_as {
            Some(read) => format!("{heard}\n     read as {read:?}"),
            None => heard,
        };
        let ranked = a
            .ranking
            .as_ref()
            .map(|r| {
                let top = |b: &[(String, f32)]| -> String {
                    b.iter().take(3).map(|(t, p)| format!("{t} {p:.2}")).collect::<Vec<_>>().join(", ")
                };
                let cues = match &r.model_best {
                    Some(own) => format!(" (cued {}; the model's own: {})", r.cued.join(", "), top(own)),
                    None => String::new(),
                };
                format!("\n     rank call {:.2}: {}{cues}", r.p_call, top(&r.best))
            })
            .unwrap_or_default();
        println!("  [{}] {:?}{heard}\n     want {want}\n     got  {got}{ranked}", c.id, c.text);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn case(tool: Option<&str>, args: Value) -> Case {
        Case {
            id: "t".into(),
            text: "x".into(),
            speech: "x".into(),
            tool: tool.map(str::to_string),
            args,
            after: None,
            root: "/r".into(),
        }
    }

    #[test]
    fn the_scores_count_what_they_say() {
        let registry = Registry::new(smart_tools::specs()).unwrap();
        let cases = vec![
            case(Some("fs.scan"), json!({"path": "/r/a"})),
            case(Some("fs.scan"), json!({"path": "/r/b"})),
            case(Some("fs.hash"), json!({"path": "/r/c"})),
            case(None, json!({})),
            case(None, json!({})),
        ];
        let a = |tool: Option<&str>, args: Value| Answer { tool: tool.map(str::to_string), args, ..Answer::default() };
        let answers = vec![
            a(Some("fs.scan"), json!({"path": "/r/a"})),
            a(Some("fs.scan"), json!({"path": "/r/x"})),
            a(None, Value::Null),
            a(None, Value::Null),
            a(Some("fs.scan"), json!({"path": "/r/a"})),
        ];
        let s = score("m", &cases, &answers, &registry);
        assert_eq!(s.tool_accuracy, 60.0);
        assert_eq!(s.call_accuracy, 40.0);
        assert_eq!((s.path_cases, s.path_accuracy), (2, 50.0));
        assert_eq!(s.no_call_recall, 50.0);
        assert_eq!(s.no_call_precision, 50.0);
        assert_eq!(s.per_tool["fs.hash"], (1, 0, 0));
        assert_eq!(s.confusion["(no call)"]["fs.scan"], 1);
        assert_eq!(s.schema_valid, 100.0);
    }
}
