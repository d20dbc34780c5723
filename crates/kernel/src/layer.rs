//! Tool layers L0–L4 (seed 000 §4).
//!
//! A layer is how much of the world a call can change: observe, interpret, structure (produce a
//! proposal artifact), apply (reversible mutation), transform (high impact). The order of the
//! enum is the order of privilege; the plus-one rule and the time gates are defined on it.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Layer {
    L0,
    L1,
    L2,
    L3,
    L4,
}

impl Layer {
    pub const ALL: [Layer; 5] = [Layer::L0, Layer::L1, Layer::L2, Layer::L3, Layer::L4];

    pub fn index(self) -> u8 {
        self as u8
    }

    pub fn name(self) -> &'static str {
        match self {
            Layer::L0 => "observe",
            Layer::L1 => "interpret",
            Layer::L2 => "structure",
            Layer::L3 => "apply",
            Layer::L4 => "transform",
        }
    }

    /// The layer just below, if any.
    pub fn below(self) -> Option<Layer> {
        Layer::try_from(self.index().checked_sub(1)?).ok()
    }
}

impl From<Layer> for u8 {
    fn from(l: Layer) -> u8 {
        l.index()
    }
}

impl TryFrom<u8> for Layer {
    type Error = String;
    fn try_from(v: u8) -> Result<Layer, String> {
        match v {
            0 => Ok(Layer::L0),
            1 => Ok(Layer::L1),
            2 => Ok(Layer::L2),
            3 => Ok(Layer::L3),
            4 => Ok(Layer::L4),
            _ => Err(format!("layer {v} does not exist (layers are 0 to 4)")),
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "L{}", self.index())
    }
}
