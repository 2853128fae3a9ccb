#!/usr/bin/env bash
# cmake --install into a scratch prefix, then build the installed crate (both features) with
# nothing but that prefix: its build.rs must find PREFIX/lib by itself.
set -euo pipefail
BUILD=$(realpath "$1")
fail() { echo "FAIL: $*"; exit 1; }
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
cmake --install "$BUILD" --prefix "$P" >/dev/null
for f in lib/libsnarkpipe_supraseal.so lib/libsnarkpipe_cuzk.so include/snarkpipe/supraseal_c2.h \
  share/snarkpipe/rust/supraseal-c2/Cargo.toml share/snarkpipe/rust/supraseal-c2/src/lib.rs bin/snarkpipe; do
  [ -e "$P/$f" ] || fail "$f was not installed"
done
# A C caller compiles against the installed header alone, with either ABI's declarations.
for def in "" "-DSNARKPIPE_SUPRASEAL_CUZK"; do
  echo '#include <snarkpipe/supraseal_c2.h>
int main(void) { SRS s = {0}; RustError e = create_SRS(&s, "/nonexistent.params", false); return e.code == 2 ? 0 : 1; }' |
    cc -x c $def -I "$P/include" - -L "$P/lib" -lsnarkpipe_supraseal -Wl,-rpath,"$P/lib" -o "$P/c-caller" ||
    fail "the installed header does not compile as C ($def)"
done
"$P/c-caller" || fail "create_SRS on a missing file did not return SNARKPIPE_ABI_PARAMS_FILE"
for features in "" "--features cuzk"; do
  env -u SNARKPIPE_LIB_DIR cargo test --offline --quiet $features --manifest-path "$P/share/snarkpipe/rust/supraseal-c2/Cargo.toml" \
    --target-dir "$P/target" >/dev/null 2>&1 || fail "the installed crate does not build and pass its tests ($features)"
done
echo "ok: installed libraries, header and crate; the crate found PREFIX/lib by itself"
