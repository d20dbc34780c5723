//! Capabilities: `domain:action:scope` (seed 002).
//!
//! A tool declares the capabilities it needs; a scope token carries the capabilities Orbit
//! granted. A granted segment of `*` covers any value; anything else must match exactly. There is
//! no other wildcard syntax, so what a token grants can be read at a glance.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Capability {
    pub domain: String,
    pub action: String,
    pub scope: String,
}

impl Capability {
    /// Whether this granted capability covers the `required` one.
    pub fn grants(&self, required: &Capability) -> bool {
        fn seg(granted: &str, wanted: &str) -> bool {
            granted == "*" || granted == wanted
        }
        seg(&self.domain, &required.domain) && seg(&self.action, &required.action) && seg(&self.scope, &required.scope)
    }
}

impl FromStr for Capability {
    type Err = String;
    fn from_str(s: &str) -> Result<Capability, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let valid = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || "_-.*/".contains(c));
        match parts.as_slice() {
            [d, a, sc] if valid(d) && valid(a) && valid(sc) => {
                Ok(Capability { domain: (*d).to_string(), action: (*a).to_string(), scope: (*sc).to_string() })
            }
            _ => Err(format!("capability {s:?} must look like domain:action:scope, e.g. fs:read:*")),
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.domain, self.action, self.scope)
    }
}

impl Serialize for Capability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Capability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Capability, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(s: &str) -> Capability {
        s.parse().unwrap()
    }

    #[test]
    fn star_grants_any_segment_and_nothing_else_does() {
        assert!(cap("fs:read:*").grants(&cap("fs:read:home")));
        assert!(cap("*:*:*").grants(&cap("net:http:get")));
        assert!(!cap("fs:read:*").grants(&cap("fs:write:home")));
        assert!(!cap("fs:read:home").grants(&cap("fs:read:*")));
    }

    #[test]
    fn malformed_capabilities_are_refused() {
        for bad in ["fs:read", "fs::x", "a:b:c:d", "fs:re ad:*", ""] {
            assert!(bad.parse::<Capability>().is_err(), "{bad:?} parsed");
        }
    }
}
