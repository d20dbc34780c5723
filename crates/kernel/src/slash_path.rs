//! Paths written with `/` on every system.
//!
//! Some paths SMART writes are read back by something that only knows `/`: a tar archive's
//! member names, the redirects file a static site serves, the names understanding matches a
//! sentence against. On Windows a `Path`'s text uses `\`, and a name joined onto it with `/`
//! gives `C:\Users\ana/Pictures/cat.jpg`: a mix that works for opening the file but that no
//! string comparison, `rsplit('/')` or archive reader treats as the same path as the one the
//! system wrote. So such paths are written in one form everywhere: the path's components
//! joined with `/`, the drive or server prefix kept (`C:/Users/ana`, `//server/share/x`).
//! Windows opens those as they are, and `Path` compares them to the native spelling by
//! components, so the kernel's checks see the same path either way.
//!
//! On Unix a `\` is an ordinary character of a name and is kept; only the separators change,
//! and Unix's are `/` already.

use std::path::{Component, Path};

/// `path` with its components joined by `/`: `C:\Users\ana` → `C:/Users/ana`, `a\b` → `a/b` on
/// Windows; unchanged text for a Unix path apart from `.` components and doubled or trailing
/// separators, which `Path::components` drops.
pub fn slash_path(path: &Path) -> String {
    let mut out = String::new();
    // A separator goes between two names, never after a prefix or the root, which end one.
    let mut after_name = false;
    for c in path.components() {
        match c {
            Component::Prefix(p) => {
                out.push_str(&p.as_os_str().to_string_lossy().replace('\\', "/"));
                after_name = false;
            }
            Component::RootDir => {
                out.push('/');
                after_name = false;
            }
            Component::CurDir | Component::ParentDir | Component::Normal(_) => {
                if after_name {
                    out.push('/');
                }
                out.push_str(&c.as_os_str().to_string_lossy());
                after_name = true;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_built_by_the_system_is_slash_separated() {
        let rel = Path::new("empty").join("sub").join(".keep");
        assert_eq!(slash_path(&rel), "empty/sub/.keep");
        assert_eq!(slash_path(Path::new("")), "");
        assert_eq!(slash_path(Path::new("./a/../b")), "./a/../b");
    }

    #[test]
    fn an_absolute_path_keeps_its_root_and_loses_a_trailing_separator() {
        let abs = Path::new(std::path::MAIN_SEPARATOR_STR).join("home").join("ana").join("y.txt");
        let s = slash_path(&abs);
        assert_eq!(s, "/home/ana/y.txt");
        assert_eq!(Path::new(&s), abs.as_path(), "the same path by components");
        assert_eq!(slash_path(Path::new("/")), "/");
        assert_eq!(slash_path(Path::new("/home/ana/")), "/home/ana");
    }

    #[cfg(unix)]
    #[test]
    fn a_backslash_in_a_unix_name_is_part_of_the_name() {
        assert_eq!(slash_path(Path::new("/r/a\\b.txt")), "/r/a\\b.txt");
    }

    #[cfg(windows)]
    #[test]
    fn windows_prefixes_are_kept_with_slashes() {
        assert_eq!(slash_path(Path::new(r"C:\Users\ana\Pictures")), "C:/Users/ana/Pictures");
        assert_eq!(slash_path(Path::new(r"C:\Users/ana\x.txt")), "C:/Users/ana/x.txt");
        assert_eq!(slash_path(Path::new(r"C:\")), "C:/");
        assert_eq!(slash_path(Path::new(r"C:rel\x")), "C:rel/x");
        assert_eq!(slash_path(Path::new(r"\\server\share\x")), "//server/share/x");
        assert_eq!(slash_path(Path::new(r"a\b")), "a/b");
    }
}
