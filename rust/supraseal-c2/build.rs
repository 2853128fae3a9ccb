// Links snarkpipe's shared library in place of supraseal-c2's compiled CUDA.
//
// SNARKPIPE_LIB_DIR names the directory holding libsnarkpipe_supraseal.so (or, with the
// `cuzk` feature, libsnarkpipe_cuzk.so); without it, the `lib` of the prefix this crate was
// installed under (`cmake --install` puts it in PREFIX/share/snarkpipe/rust/supraseal-c2),
// else /usr/local/lib. The directory is also
// written as an rpath, so that this package's own binaries and tests find the library at run
// time (cargo applies link-arg only to the package that emits it; dependents set their own
// rpath, or LD_LIBRARY_PATH, or install the library where ld.so looks).

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SNARKPIPE_LIB_DIR");

    let lib = if env::var_os("CARGO_FEATURE_CUZK").is_some() {
        "snarkpipe_cuzk"
    } else {
        "snarkpipe_supraseal"
    };
    let dir = match env::var_os("SNARKPIPE_LIB_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => installed_lib_dir(lib).unwrap_or_else(|| PathBuf::from("/usr/local/lib")),
    };

    let file = dir.join(format!("lib{lib}.so"));
    if !file.is_file() {
        println!(
            "cargo:warning=supraseal-c2: {} not found; set SNARKPIPE_LIB_DIR to the directory \
             holding snarkpipe's lib{lib}.so (snarkpipe's build directory, or where it was \
             installed), or linking will fail",
            file.display()
        );
    }

    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib={lib}");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
}

// PREFIX/lib when this crate lies in PREFIX/share/snarkpipe/rust/supraseal-c2 beside the library.
fn installed_lib_dir(lib: &str) -> Option<PathBuf> {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR")?);
    let prefix = manifest.ancestors().nth(4)?;
    let dir = prefix.join("lib");
    dir.join(format!("lib{lib}.so")).is_file().then_some(dir)
}
