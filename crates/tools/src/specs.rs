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

/// The six tools, in the order a task climbs through them.
pub fn specs() -> Vec<ToolSpec> {
    vec![
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
            "propose.move",
            "Write a plan to move or rename files and folders; nothing is moved until the plan is applied.",
            Layer::L2,
            Reversibility::ProposeOnly,
            2,
            50,
            "plan:write:*",
            json!({
                "type": "object",
                "properties": {
                    "moves": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": MAX_BATCH,
                        "items": {
                            "type": "object",
                            "properties": {
                                "from": path_schema("the file or folder to move"),
                                "to": path_schema("where it should be afterwards; must not exist yet"),
                            },
                            "required": ["from", "to"],
                            "additionalProperties": false,
                        },
                    },
                },
                "required": ["moves"],
                "additionalProperties": false,
            }),
            &["moves/*/from", "moves/*/to"],
            None,
        ),
        spec(
            "apply.move",
            "Carry out a move plan made by propose.move, if none of its files changed since; it can be undone.",
            Layer::L3,
            Reversibility::Reversible,
            5,
            500,
            "fs:move:*",
            json!({
                "type": "object",
                "properties": {
                    "proposal": {
                        "type": "string",
                        "pattern": "^[0-9a-f]{64}$",
                        "description": "the plan's hash, as propose.move reported it",
                    },
                },
                "required": ["proposal"],
                "additionalProperties": false,
            }),
            &[],
            Some("proposal"),
        )
        .with_artifact_paths(&["moves/*/from", "moves/*/to"]),
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
                },
                "required": ["paths"],
                "additionalProperties": false,
            }),
            &["paths/*"],
            None,
        ),
    ]
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
    fn the_registry_accepts_all_six_and_their_capabilities_parse() {
        let specs = specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["fs.scan", "fs.hash", "cluster.duplicates", "propose.move", "apply.move", "fs.quarantine"]);
        for s in &specs {
            for c in &s.capabilities {
                assert_eq!(c.to_string().parse::<Capability>().unwrap(), *c, "{}", s.name);
            }
            assert!(!s.description.is_empty() && s.description.ends_with('.'), "{}", s.name);
        }
        Registry::new(specs).unwrap();
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
    }
}
