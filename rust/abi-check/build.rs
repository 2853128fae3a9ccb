// The binary's rpath to snarkpipe's library: supraseal-c2's build script sets it for its own
// targets only (cargo does not pass link-arg on to dependents).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SNARKPIPE_LIB_DIR");
    let dir = match std::env::var_os("SNARKPIPE_LIB_DIR") {
        Some(d) if !d.is_empty() => std::path::PathBuf::from(d),
        _ => std::path::PathBuf::from("/usr/local/lib"),
    };
    println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{}", dir.display());
}
