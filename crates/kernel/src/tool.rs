//! Tool declarations and the registry the kernel admits against.
//!
//! A tool is data before it is code: its layer, its argument schema, how reversible it is, what
//! it costs and which capabilities it needs are declared here and decided on by the kernel. The
//! code that runs a tool lives elsewhere (the tools crate) and only ever sees an
//! [`crate::AdmittedCall`].

use crate::canonical::{Hash, hash_of};
use crate::capability::Capability;
use crate::layer::Layer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Seed 000 §7.3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reversibility {
    ReadOnly,
    ProposeOnly,
    Reversible,
    Irreversible,
}

impl Reversibility {
    /// Whether a call of this kind changes the person's files.
    pub fn mutates(self) -> bool {
        matches!(self, Reversibility::Reversible | Reversibility::Irreversible)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub layer: Layer,
    pub reversibility: Reversibility,
    /// Cost units charged against the lease budget when admitted.
    pub cost: u64,
    /// What the tool expects to take; shown to the person, not enforced by the kernel.
    pub expected_ms: u64,
    pub capabilities: Vec<Capability>,
    /// JSON schema of the arguments.
    pub args_schema: Value,
    /// Where paths sit in the arguments: `path`, `paths/*`, `moves/*/from`. Each is resolved
    /// through the world and confined to the allowed roots before anything else sees it.
    #[serde(default)]
    pub path_args: Vec<String>,
    /// The argument that names a proposal artifact by hash (`apply.*` tools).
    #[serde(default)]
    pub artifact_arg: Option<String>,
    /// Where paths sit in that artifact's body (`moves/*/to`). They were resolved when the
    /// proposal was made, but the world can change before it is applied (a folder swapped for a
    /// symlink): each is resolved again at admission and must be unchanged and inside the roots.
    #[serde(default)]
    pub artifact_paths: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("tool {name:?} is declared twice")]
    Duplicate { name: String },
    #[error("tool {name:?} has an invalid argument schema: {reason}")]
    BadSchema { name: String, reason: String },
    #[error("tool name {name:?} must be lowercase words joined by dots, e.g. fs.scan")]
    BadName { name: String },
}

struct Entry {
    spec: ToolSpec,
    validator: jsonschema::Validator,
}

/// The tools the kernel knows, by name.
pub struct Registry {
    tools: BTreeMap<String, Entry>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}

impl Registry {
    pub fn new(specs: Vec<ToolSpec>) -> Result<Registry, RegistryError> {
        let mut tools = BTreeMap::new();
        for spec in specs {
            let name_ok = !spec.name.is_empty()
                && spec.name.split('.').all(|w| {
                    !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                });
            if !name_ok {
                return Err(RegistryError::BadName { name: spec.name });
            }
            let validator = jsonschema::validator_for(&spec.args_schema)
                .map_err(|e| RegistryError::BadSchema { name: spec.name.clone(), reason: e.to_string() })?;
            if tools.contains_key(&spec.name) {
                return Err(RegistryError::Duplicate { name: spec.name });
            }
            tools.insert(spec.name.clone(), Entry { spec, validator });
        }
        Ok(Registry { tools })
    }

    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.get(name).map(|e| &e.spec)
    }

    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.tools.values().map(|e| &e.spec)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// Validates arguments against the tool's schema; the error names where and why.
    pub fn validate_args(&self, name: &str, args: &Value) -> Result<(), String> {
        let Some(entry) = self.tools.get(name) else {
            return Err(format!("unknown tool {name:?}"));
        };
        let errors: Vec<String> = entry
            .validator
            .iter_errors(args)
            .take(3)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() { e.to_string() } else { format!("at {at}: {e}") }
            })
            .collect();
        if errors.is_empty() { Ok(()) } else { Err(errors.join("; ")) }
    }

    /// A hash over every declaration, recorded at genesis so a ledger names the tool set it was
    /// decided under.
    pub fn hash(&self) -> Result<Hash, serde_json::Error> {
        let specs: Vec<&ToolSpec> = self.specs().collect();
        hash_of(&specs)
    }
}

/// Calls `f` on every value the pattern (`a/*/b`) reaches inside `value`. A pattern that reaches
/// nothing calls nothing: the schema, checked first, decides what must be present.
pub fn visit_pattern<E>(
    value: &mut Value,
    pattern: &str,
    f: &mut dyn FnMut(&mut Value) -> Result<(), E>,
) -> Result<(), E> {
    let segments: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    visit(value, &segments, f)
}

fn visit<E>(value: &mut Value, segments: &[&str], f: &mut dyn FnMut(&mut Value) -> Result<(), E>) -> Result<(), E> {
    let Some((first, rest)) = segments.split_first() else {
        return f(value);
    };
    match (*first, value) {
        ("*", Value::Array(items)) => {
            for item in items {
                visit(item, rest, f)?;
            }
            Ok(())
        }
        (key, Value::Object(map)) => match map.get_mut(key) {
            Some(child) => visit(child, rest, f),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(name: &str, schema: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            layer: Layer::L0,
            reversibility: Reversibility::ReadOnly,
            cost: 1,
            expected_ms: 1,
            capabilities: vec![],
            args_schema: schema,
            path_args: vec![],
            artifact_arg: None,
            artifact_paths: vec![],
        }
    }

    #[test]
    fn schema_errors_name_the_place() {
        let r = Registry::new(vec![spec(
            "fs.scan",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}),
        )])
        .unwrap();
        assert!(r.validate_args("fs.scan", &json!({"path": "/x"})).is_ok());
        let err = r.validate_args("fs.scan", &json!({"path": 3})).unwrap_err();
        assert!(err.contains("/path"), "{err}");
        assert!(r.validate_args("fs.scan", &json!({})).unwrap_err().contains("path"));
        assert!(r.validate_args("fs.scan", &json!({"path": "/x", "rm": true})).is_err());
    }

    #[test]
    fn registry_refuses_duplicates_bad_names_and_bad_schemas() {
        let s = spec("fs.scan", json!({"type": "object"}));
        assert!(matches!(Registry::new(vec![s.clone(), s]), Err(RegistryError::Duplicate { .. })));
        assert!(matches!(Registry::new(vec![spec("Fs Scan", json!({}))]), Err(RegistryError::BadName { .. })));
        assert!(matches!(
            Registry::new(vec![spec("fs.scan", json!({"type": 7}))]),
            Err(RegistryError::BadSchema { .. })
        ));
    }

    #[test]
    fn patterns_reach_nested_array_members() {
        let mut v = json!({"moves": [{"from": "a", "to": "b"}, {"from": "c", "to": "d"}], "path": "p"});
        let mut seen = vec![];
        visit_pattern::<()>(&mut v, "moves/*/from", &mut |x| {
            seen.push(x.as_str().unwrap_or("").to_string());
            *x = json!("X");
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec!["a", "c"]);
        assert_eq!(v["moves"][1]["from"], "X");
        assert_eq!(v["moves"][1]["to"], "d");
    }
}
