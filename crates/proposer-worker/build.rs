//! A MinGW (Windows GNU) build of the worker stands alone: see `smart-mingw-link`.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    smart_mingw_link::stand_alone_on_mingw();
}
