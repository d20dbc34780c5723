//! A tool as a model is shown it: a name, one sentence, and the JSON schema of its arguments.
//!
//! This is deliberately less than the kernel's `ToolSpec`. Layers, costs, tiers and
//! capabilities are the kernel's business; telling them to a model would only invite it to
//! argue with them. The runtime builds these from the tools Orbit made visible in the current
//! scope, so a tool the scope hides is never described, never in the grammar, and so can never
//! be named by a grammar-constrained model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDecl {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

impl ToolDecl {
    /// The declaration as one JSON object, the shape both FunctionGemma's declaration block and
    /// Qwen's `<tools>` section expect.
    pub fn declaration_json(&self) -> String {
        serde_json::json!({
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        })
        .to_string()
    }
}
