//! The tool declarations the kernel admits against.
//!
//! A tool is data before it is code. The kernel decides on these declarations alone (layer,
//! reversibility, cost, capabilities, which arguments are paths), so they are the contract: a
//! call the schema refuses never reaches an executor, and a path argument not listed in
//! `path_args` would escape root confinement. That is why the schemas are strict
//! (`additionalProperties: false`, every field required) and why this list lives next to the
//! executors that rely on it. The argument shapes are also the public CLI contract and what a
//! model is shown, so the descriptions are one plain sentence each.

use serde_json::{Value, json};
use smart_kernel::{Capability, Layer, Reversibility, ToolSpec};

/// The most paths one `propose.move` or `fs.quarantine` call may name.
pub const MAX_BATCH: usize = 10_000;

/// Every tool, in the order a task climbs through the layers.
pub fn specs() -> Vec<ToolSpec> {
    vec![
        // L0 observe.
        spec(
            "fs.scan",
            "List a file or everything inside a folder (names, kinds and sizes), without changing anything.",
            Layer::L0,
            Reversibility::ReadOnly,
            1,
            200,
            "fs:read:*",
            one_path("the file or folder to list"),
            &["path"],
            None,
        ),
        spec(
            "fs.hash",
            "Compute the blake3 content hash and size of one file, without changing anything.",
            Layer::L0,
            Reversibility::ReadOnly,
            1,
            100,
            "fs:read:*",
            one_path("the file to hash"),
            &["path"],
            None,
        ),
        spec(
            "fs.read",
            "Read a text file (the first 256 KiB) and say which encoding it is in, without changing anything.",
            Layer::L0,
            Reversibility::ReadOnly,
            1,
            50,
            "fs:read:*",
            one_path("the text file to read"),
            &["path"],
            None,
        ),
        spec(
            "rag.search",
            "Search the library index of the allowed folders for documents about something; results are ranked and explained.",
            Layer::L0,
            Reversibility::ReadOnly,
            1,
            50,
            "rag:read:*",
            json!({
                "type": "object",
                "properties": {
                    "query": { "type": "string", "minLength": 1, "maxLength": 500, "description": "what to look for, in words" },
                    "path_prefix": path_schema("only documents inside this folder"),
                    "kind": { "type": "string", "enum": ["text", "markdown", "code", "binary", "symlink", "other"], "description": "only documents of this kind" },
                    "modified_since_ms": { "type": "integer", "minimum": 0, "description": "only documents modified at or after this time (ms since 1970)" },
                    "limit": { "type": "integer", "minimum": 1, "maximum": 50, "description": "how many results, 10 if not given" },
                },
                "required": ["query"],
                "additionalProperties": false,
            }),
            &["path_prefix"],
            None,
        ),
        spec(
            "orbit.get_context",
            "Report the current situation: stance, lease, layer frontier, allowed folders and visible tools.",
            Layer::L0,
            Reversibility::ReadOnly,
            1,
            10,
            "orbit:read:*",
            json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            &[],
            None,
        ),
        // L1 interpret.
        spec(
            "cluster.duplicates",
            "Find groups of files with identical content inside a folder, without changing anything.",
            Layer::L1,
            Reversibility::ReadOnly,
            2,
            2_000,
            "fs:read:*",
            one_path("the folder to search"),
            &["path"],
            None,
        ),
        spec(
            "infer.superseded_docs",
            "Find documents in a folder that are older versions or copies of another (report_v1 vs report-final), with reasons.",
            Layer::L1,
            Reversibility::ReadOnly,
            2,
            1_000,
            "fs:read:*",
            one_path("the folder to look in"),
            &["path"],
            None,
        ),
        spec(
            "rag.assemble_context",
            "Put chosen search results together into one bundle of text that fits a token budget.",
            Layer::L1,
            Reversibility::ReadOnly,
            1,
            100,
            "rag:read:*",
            json!({
                "type": "object",
                "properties": {
                    "ids": { "type": "array", "minItems": 1, "maxItems": 100, "items": path_schema("a document id (its path) from rag.search") },
                    "budget_tokens": { "type": "integer", "minimum": 1, "maximum": 32000, "description": "the most tokens the bundle may hold" },
                },
                "required": ["ids", "budget_tokens"],
                "additionalProperties": false,
            }),
            &["ids/*"],
            None,
        ),
        spec(
            "rag.validate_applicability",
            "Check whether indexed documents are still what the index remembers (their content hash now).",
            Layer::L1,
            Reversibility::ReadOnly,
            1,
            100,
            "rag:read:*",
            json!({
                "type": "object",
                "properties": {
                    "ids": { "type": "array", "minItems": 1, "maxItems": 1000, "items": path_schema("a document id (its path)") },
                },
                "required": ["ids"],
                "additionalProperties": false,
            }),
            &["ids/*"],
            None,
        ),
        // L2 structure: proposals only.
        spec(
            "propose.patch",
            "Write a change to a text file as a patch (a diff, or find and replace); nothing changes until it is applied.",
            Layer::L2,
            Reversibility::ProposeOnly,
            2,
            50,
            "plan:write:*",
            json!({
                "type": "object",
                "properties": {
                    "path": path_schema("the text file to change"),
                    "find": { "type": "string", "minLength": 1, "maxLength": 65536, "description": "the exact text to replace; it must occur once" },
                    "replace": { "type": "string", "maxLength": 65536, "description": "what to put in its place" },
                    "diff": { "type": "string", "minLength": 1, "maxLength": 1048576, "description": "a unified diff against the file, instead of find and replace" },
                },
                "required": ["path"],
                "oneOf": [ { "required": ["find", "replace"] }, { "required": ["diff"] } ],
                "additionalProperties": false,
            }),
            &["path"],
            None,
        ),
        spec(
            "propose.move",
            "Write a plan to move or rename files and folders; nothing is moved until the plan is applied.",
            Layer::L2,
            Reversibility::ProposeOnly,
            2,
            50,
            "plan:write:*",
            moves_schema("the file or folder to move", "where it should be afterwards; must not exist yet"),
            &["moves/*/from", "moves/*/to"],
            None,
        ),
        spec(
            "propose.redirects",
            "Write the old-to-new path map (and a redirects file) for documents that were moved; nothing on disk changes.",
            Layer::L2,
            Reversibility::ProposeOnly,
            1,
            20,
            "plan:write:*",
            moves_schema("where a document was", "where it is now"),
            &["moves/*/from", "moves/*/to"],
            None,
        ),
        spec(
            "propose.quarantine",
            "Write a list of files or folders to quarantine, with sizes and hashes, for review; nothing is moved yet.",
            Layer::L2,
            Reversibility::ProposeOnly,
            2,
            100,
            "plan:write:*",
            paths_schema("a file or folder to quarantine"),
            &["paths/*"],
            None,
        ),
        // L3 apply: reversible.
        spec(
            "apply.patch",
            "Apply a patch made by propose.patch, if the file has not changed since; it can be undone.",
            Layer::L3,
            Reversibility::Reversible,
            5,
            50,
            "fs:write:*",
            proposal_schema("the patch's hash, as propose.patch reported it"),
            &[],
            Some("proposal"),
        )
        .with_artifact_paths(&["path"]),
        spec(
            "apply.move",
            "Carry out a move plan made by propose.move, if none of its files changed since; it can be undone.",
            Layer::L3,
            Reversibility::Reversible,
            5,
            500,
            "fs:move:*",
            proposal_schema("the plan's hash, as propose.move reported it"),
            &[],
            Some("proposal"),
        )
        .with_artifact_paths(&["moves/*/from", "moves/*/to"]),
        spec(
            "db.upsert",
            "Store a small JSON record under a collection and key in SMART's record store; the previous value is kept for undo.",
            Layer::L3,
            Reversibility::Reversible,
            2,
            20,
            "db:write:*",
            json!({
                "type": "object",
                "properties": {
                    "collection": { "type": "string", "pattern": "^[a-z][a-z0-9_]{0,31}$", "description": "the collection, lowercase, e.g. notes" },
                    "key": { "type": "string", "minLength": 1, "maxLength": 200, "description": "the record's key" },
                    "value": { "description": "the record, any JSON value" },
                },
                "required": ["collection", "key", "value"],
                "additionalProperties": false,
            }),
            &[],
            None,
        ),
        // L4 transform: every call waits for the person.
        spec(
            "fs.quarantine",
            "Move files or folders out of the way into the quarantine folder, where they can be restored.",
            Layer::L4,
            Reversibility::Reversible,
            10,
            500,
            "fs:quarantine:*",
            json!({
                "type": "object",
                "properties": {
                    "paths": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": MAX_BATCH,
                        "items": path_schema("a file or folder to quarantine"),
                    },
                    "proposal": {
                        "type": "string",
                        "pattern": "^[0-9a-f]{64}$",
                        "description": "instead of paths: a quarantine list's hash, as propose.quarantine reported it",
                    },
                },
                "oneOf": [ { "required": ["paths"] }, { "required": ["proposal"] } ],
                "additionalProperties": false,
            }),
            &["paths/*"],
            Some("proposal"),
        )
        .with_artifact_paths(&["paths/*"]),
        spec(
            "fs.compact",
            "Archive a folder into a compressed .tar.gz beside it and quarantine the originals; it can be undone.",
            Layer::L4,
            Reversibility::Reversible,
            10,
            5_000,
            "fs:compact:*",
            one_path("the folder to archive"),
            &["path"],
            None,
        ),
        spec(
            "rebuild.index",
            "Rebuild the library index of the allowed folders from scratch; the old index answers until the new one is complete.",
            Layer::L4,
            Reversibility::Irreversible,
            10,
            60_000,
            "rag:rebuild:*",
            json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            &[],
            None,
        ),
        spec(
            "quarantine.purge",
            "Permanently delete one quarantine batch; this cannot be undone.",
            Layer::L4,
            Reversibility::Irreversible,
            5,
            500,
            "fs:purge:*",
            json!({
                "type": "object",
                "properties": {
                    "batch": { "type": "string", "pattern": "^[0-9a-f]{16}(-[0-9]{1,4})?$", "description": "the batch name, as smart quarantine list shows it" },
                },
                "required": ["batch"],
                "additionalProperties": false,
            }),
            &[],
            None,
        ),
    ]
}

fn moves_schema(from: &str, to: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "moves": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_BATCH,
                "items": {
                    "type": "object",
                    "properties": { "from": path_schema(from), "to": path_schema(to) },
                    "required": ["from", "to"],
                    "additionalProperties": false,
                },
            },
        },
        "required": ["moves"],
        "additionalProperties": false,
    })
}

fn paths_schema(item: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "paths": { "type": "array", "minItems": 1, "maxItems": MAX_BATCH, "items": path_schema(item) },
        },
        "required": ["paths"],
        "additionalProperties": false,
    })
}

fn proposal_schema(description: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "proposal": { "type": "string", "pattern": "^[0-9a-f]{64}$", "description": description },
        },
        "required": ["proposal"],
        "additionalProperties": false,
    })
}

fn path_schema(description: &str) -> Value {
    json!({ "type": "string", "minLength": 1, "description": description })
}

fn one_path(description: &str) -> Value {
    json!({
        "type": "object",
        "properties": { "path": path_schema(description) },
        "required": ["path"],
        "additionalProperties": false,
    })
}

trait WithArtifactPaths {
    fn with_artifact_paths(self, patterns: &[&str]) -> ToolSpec;
}

impl WithArtifactPaths for ToolSpec {
    /// Where the paths sit in the artifact an `apply.*` tool consumes (re-checked at admission).
    fn with_artifact_paths(mut self, patterns: &[&str]) -> ToolSpec {
        self.artifact_paths = patterns.iter().map(|p| (*p).to_string()).collect();
        self
    }
}

#[allow(clippy::too_many_arguments)]
fn spec(
    name: &str,
    description: &str,
    layer: Layer,
    reversibility: Reversibility,
    cost: u64,
    expected_ms: u64,
    capability: &str,
    args_schema: Value,
    path_args: &[&str],
    artifact_arg: Option<&str>,
) -> ToolSpec {
    let (domain, rest) = capability.split_once(':').unwrap_or((capability, ""));
    let (action, scope) = rest.split_once(':').unwrap_or((rest, ""));
    ToolSpec {
        name: name.into(),
        description: description.into(),
        layer,
        reversibility,
        cost,
        expected_ms,
        capabilities: vec![Capability { domain: domain.into(), action: action.into(), scope: scope.into() }],
        args_schema,
        path_args: path_args.iter().map(|p| (*p).to_string()).collect(),
        artifact_arg: artifact_arg.map(str::to_string),
        artifact_paths: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use smart_kernel::Registry;

    #[test]
    fn the_registry_accepts_every_tool_and_their_capabilities_parse() {
        let specs = specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "fs.scan",
                "fs.hash",
                "fs.read",
                "rag.search",
                "orbit.get_context",
                "cluster.duplicates",
                "infer.superseded_docs",
                "rag.assemble_context",
                "rag.validate_applicability",
                "propose.patch",
                "propose.move",
                "propose.redirects",
                "propose.quarantine",
                "apply.patch",
                "apply.move",
                "db.upsert",
                "fs.quarantine",
                "fs.compact",
                "rebuild.index",
                "quarantine.purge",
            ]
        );
        // Every reversible tool has an undo, and every path-taking schema names its paths.
        for s in specs.iter().filter(|s| s.reversibility == smart_kernel::Reversibility::Reversible) {
            assert!(crate::exec::UNDOABLE.contains(&s.name.as_str()), "{} has no undo", s.name);
        }
        for s in &specs {
            for c in &s.capabilities {
                assert_eq!(c.to_string().parse::<Capability>().unwrap(), *c, "{}", s.name);
            }
            assert!(!s.description.is_empty() && s.description.ends_with('.'), "{}", s.name);
        }
        Registry::new(specs).unwrap();
    }

    #[test]
    fn the_tools_given_up_at_a_deadline_are_exactly_those_that_only_read() {
        // A tool that writes must never be abandoned halfway. The executor tells readers by their
        // layer, so every tool below the first writing layer must be one that only reads (its
        // capability reads, or writes only a plan into the ledger) and every tool at or above it
        // one that changes something — undo too, which takes the layer of what it reverses.
        for s in specs() {
            let c = &s.capabilities[0];
            let only_reads = c.action == "read" || c.domain == "plan";
            assert_eq!(s.layer < crate::exec::FIRST_WRITING_LAYER, only_reads, "{} ({c})", s.name);
            if s.reversibility == Reversibility::Reversible {
                assert!(s.layer >= crate::exec::FIRST_WRITING_LAYER, "undo of {} would run as a reader", s.name);
            }
        }
    }

    #[test]
    fn schemas_are_strict() {
        let r = Registry::new(specs()).unwrap();
        assert!(r.validate_args("fs.scan", &json!({"path": "/x"})).is_ok());
        assert!(r.validate_args("fs.scan", &json!({"path": ""})).is_err());
        assert!(r.validate_args("fs.scan", &json!({"path": "/x", "recursive": true})).is_err());
        assert!(r.validate_args("propose.move", &json!({"moves": []})).is_err());
        assert!(r.validate_args("propose.move", &json!({"moves": [{"from": "/a"}]})).is_err());
        assert!(r.validate_args("propose.move", &json!({"moves": [{"from": "/a", "to": "/b", "x": 1}]})).is_err());
        assert!(r.validate_args("propose.move", &json!({"moves": [{"from": "/a", "to": "/b"}]})).is_ok());
        let hex = "ab".repeat(32);
        assert!(r.validate_args("apply.move", &json!({"proposal": hex})).is_ok());
        assert!(r.validate_args("apply.move", &json!({"proposal": "AB".repeat(32)})).is_err());
        assert!(r.validate_args("apply.move", &json!({"proposal": "ab"})).is_err());
        assert!(r.validate_args("apply.move", &json!({"proposal": format!("{hex}0")})).is_err());
        assert!(r.validate_args("fs.quarantine", &json!({"paths": []})).is_err());
        assert!(r.validate_args("fs.quarantine", &json!({"paths": ["/a", "/b"]})).is_ok());
        let too_many: Vec<String> = (0..=MAX_BATCH).map(|i| format!("/p{i}")).collect();
        assert!(r.validate_args("fs.quarantine", &json!({"paths": too_many})).is_err());
        assert!(r.validate_args("fs.quarantine", &json!({"proposal": hex})).is_ok());
        assert!(
            r.validate_args("fs.quarantine", &json!({"proposal": hex, "paths": ["/a"]})).is_err(),
            "one or the other"
        );
        assert!(r.validate_args("fs.quarantine", &json!({})).is_err());
        assert!(r.validate_args("propose.patch", &json!({"path": "/a", "find": "x", "replace": "y"})).is_ok());
        assert!(r.validate_args("propose.patch", &json!({"path": "/a", "diff": "@@"})).is_ok());
        assert!(r.validate_args("propose.patch", &json!({"path": "/a", "find": "x"})).is_err());
        assert!(
            r.validate_args("propose.patch", &json!({"path": "/a", "diff": "d", "find": "x", "replace": "y"})).is_err()
        );
        assert!(r.validate_args("db.upsert", &json!({"collection": "notes", "key": "k", "value": {"a": 1}})).is_ok());
        assert!(r.validate_args("db.upsert", &json!({"collection": "Notes/x", "key": "k", "value": 1})).is_err());
        assert!(r.validate_args("quarantine.purge", &json!({"batch": "0123456789abcdef"})).is_ok());
        assert!(r.validate_args("quarantine.purge", &json!({"batch": "../../etc"})).is_err());
        assert!(r.validate_args("rag.search", &json!({"query": "budget", "kind": "markdown", "limit": 5})).is_ok());
        assert!(r.validate_args("rag.search", &json!({"query": ""})).is_err());
    }
}
