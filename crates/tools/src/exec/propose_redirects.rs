//! `propose.redirects`: the old → new map for documents that moved.
//!
//! When notes or docs move, links to their old places break. This writes down the map — every
//! old path and where it went — as an artifact, together with a plain redirects file rendering
//! (`old new` per line, paths relative to the allowed root both sit in and percent-encoded as
//! URL paths, the format static-site hosts and link checkers read). Like every L2 tool it only proposes: the map is data for the
//! person (or a later patch) to use; nothing on disk changes.
//!
//! Each pair must be a real move: the old path must be gone or the new one present (before or
//! after `apply.move`), and the map must be a function (one old path, one new).

use crate::confine::Reader;
use crate::exec::plan::{Move, moves_in};
use serde_json::json;
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Artifact, hash_of};
use std::collections::BTreeMap;
use std::path::Path;

/// The artifact kind of a redirect map.
pub const REDIRECTS: &str = "redirects";

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let moves: Vec<Move> = moves_in(call.args(), "propose.redirects' arguments")?;
    let mut map: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, m) in moves.iter().enumerate() {
        if m.from == m.to {
            return Err(format!("redirect {}: {} points to itself", i + 1, m.from));
        }
        if let Some(other) = map.insert(&m.from, &m.to)
            && other != m.to
        {
            return Err(format!("{} is redirected twice (to {other} and to {})", m.from, m.to));
        }
        let (from_there, to_there) = (
            r.exists(Path::new(&m.from)).map_err(|e| format!("redirect {}: {e}", i + 1))?,
            r.exists(Path::new(&m.to)).map_err(|e| format!("redirect {}: {e}", i + 1))?,
        );
        if from_there && !to_there {
            return Err(format!(
                "redirect {}: {} is still there and {} does not exist; a redirect records a move",
                i + 1,
                m.from,
                m.to
            ));
        }
    }
    let roots: Vec<&Path> = r_roots(&r);
    let lines: Vec<String> = map
        .iter()
        .map(|(from, to)| format!("{} {}", url_path(&relative(from, &roots)), url_path(&relative(to, &roots))))
        .collect();
    let text = if lines.is_empty() { String::new() } else { format!("{}\n", lines.join("\n")) };
    let redirects: Vec<_> = map.iter().map(|(from, to)| json!({"from": from, "to": to})).collect();
    let artifact = Artifact {
        kind: REDIRECTS.into(),
        body: json!({ "redirects": redirects, "file": text }),
        inputs: BTreeMap::new(),
    };
    let hash = hash_of(&artifact).map_err(|e| format!("the redirect map cannot be encoded: {e}"))?;
    Ok(ToolOutput {
        output: json!({ "artifact": hash.to_hex(), "redirects": map.len(), "file": text }),
        artifact: Some(artifact),
        ..ToolOutput::default()
    })
}

fn r_roots<'a>(r: &'a Reader<'_>) -> Vec<&'a Path> {
    r.roots().collect()
}

/// A path as a URL path: every byte that is not safe in one (a space, a newline, non-ASCII) is
/// percent-encoded, so a name can never split a line or a field of the redirects file — a name
/// `old\n/etc/passwd` stays one path, `/old%0A/etc/passwd`.
pub(crate) fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `/` + the path below the root that holds it, `/`-separated on every system (a URL path; a
/// Windows `\` would be percent-encoded into a name), or the path as is.
fn relative(path: &str, roots: &[&Path]) -> String {
    roots
        .iter()
        .filter_map(|root| Path::new(path).strip_prefix(root).ok())
        .min_by_key(|rel| rel.components().count())
        .map(|rel| format!("/{}", smart_kernel::slash_path(rel)))
        .unwrap_or_else(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_split_a_line_or_a_field() {
        assert_eq!(url_path("/notes/a b.md"), "/notes/a%20b.md");
        assert_eq!(url_path("/old\n/etc/passwd"), "/old%0A/etc/passwd");
        assert_eq!(url_path("/café"), "/caf%C3%A9");
        assert_eq!(url_path("/plain/path-1_2.txt"), "/plain/path-1_2.txt");
    }

    /// What broke under Wine: the path below the root kept the system's separator, and the
    /// redirects file said `/old%5Ca.md` for `old\a.md`.
    #[test]
    fn paths_below_the_root_are_slash_separated_on_every_system() {
        let root = std::env::temp_dir().join("site");
        let file = root.join("old").join("a.md");
        assert_eq!(relative(file.to_str().unwrap_or_default(), &[root.as_path()]), "/old/a.md");
        assert_eq!(relative(root.to_str().unwrap_or_default(), &[root.as_path()]), "/");
    }
}
