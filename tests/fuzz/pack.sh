#!/usr/bin/env bash
# Packs the built fuzz targets (build-fuzz, tests/fuzz/run_all.sh builds them) so that
# campaign.sh runs on a bare Debian/Ubuntu machine of the same architecture (issue 27: the
# 10 M campaign runs on a 16-core device machine, the pack carried there as an ignored path):
#   DIR/bin/fuzz_*      the targets, debug info stripped (symbols kept)
#   DIR/lib/            the shared libraries they need beyond glibc and libstdc++
#                       (bench/cuda/pack_libs.sh); campaign.sh puts it on LD_LIBRARY_PATH
#   DIR/corpus/ dict/ regressions/ open-findings/ *.options   from tests/fuzz
#   DIR/campaign.sh     tests/fuzz/campaign.sh, which finds all of the above beside itself
#   DIR/MANIFEST        the commit and each binary's build id: a report's "module+offset"
#                       frames are symbolized here with the unstripped build-fuzz binary of
#                       that build id (the bare machine has no llvm-symbolizer)
# Above PACK_XZ_MB (50) in all, the binaries are xz-compressed (DIR/bin/*.xz) and campaign.sh
# unpacks them on its first run; the device tool carries at most 64 MiB.
#
#   tests/fuzz/pack.sh DIR [target ...]       (default: every built target)
#   then, there: DIR/campaign.sh [target ...]  (CAMPAIGN_JOBS=16 CAMPAIGN_SECONDS=580 ...)
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:?usage: tests/fuzz/pack.sh DIR [target ...]}
shift
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
XZ_MB=${PACK_XZ_MB:-50}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$BUILD"/tests/fuzz/fuzz_*; do [ -x "$f" ] && targets+=("$(basename "$f")"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "pack: no fuzz targets in $BUILD/tests/fuzz (tests/fuzz/run_all.sh builds them)" >&2; exit 1; }

rm -rf "$DIR"
mkdir -p "$DIR/bin" "$DIR/corpus" "$DIR/regressions" "$DIR/open-findings"
{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD -- src tests/fuzz || echo ' (with uncommitted changes)')"
  echo "packed $(date -u +%FT%TZ) on $(uname -m)"
} > "$DIR/MANIFEST"
bins=()
for t in "${targets[@]}"; do
  bin="$BUILD/tests/fuzz/$t"
  [ -x "$bin" ] || { echo "pack: $bin is not built" >&2; exit 1; }
  strip --strip-debug -o "$DIR/bin/$t" "$bin"
  bins+=("$bin")
  id=$(readelf -n "$bin" 2>/dev/null | awk '/Build ID/ {print $3}')
  echo "$t build-id ${id:-?}" >> "$DIR/MANIFEST"
  [ -d "tests/fuzz/corpus/$t" ] && cp -r "tests/fuzz/corpus/$t" "$DIR/corpus/"
  [ -d "tests/fuzz/regressions/$t" ] && cp -r "tests/fuzz/regressions/$t" "$DIR/regressions/"
  [ -d "tests/fuzz/open-findings/$t" ] && cp -r "tests/fuzz/open-findings/$t" "$DIR/open-findings/"
  [ -f "tests/fuzz/$t.options" ] && cp "tests/fuzz/$t.options" "$DIR/"
done
cp -r tests/fuzz/dict "$DIR/dict"
cp tests/fuzz/campaign.sh "$DIR/campaign.sh"
bash bench/cuda/pack_libs.sh "$DIR/lib" "${bins[@]}"

mb=$(du -sm "$DIR" | cut -f1)
if [ "$mb" -gt "$XZ_MB" ]; then
  echo "pack: ${mb} MB; compressing the binaries with xz"
  xz -T2 -6 "$DIR"/bin/fuzz_*
fi
echo "pack: ${#targets[@]} targets in $DIR, $(du -sh "$DIR" | cut -f1) (lib: $(ls "$DIR/lib" | tr '\n' ' '))"
