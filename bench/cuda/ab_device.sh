#!/bin/bash
# Device side of an A/B: `bench gpu` MSMs with each binary build-cuda/ab/snarkpipe-NAME
# (from build_variant.sh; NAME "base" is the plain build, packed by `--pack`), alternating,
# so that drift of the machine falls on all of them alike. Run in the repository root with
# build-cuda/ab carried:
#   BINS="base g1c1b3" G1=24,27 G2=22 ROUNDS=2 bash bench/cuda/ab_device.sh
# Writes $OUT/ab_[TAG_]NAME_ROUND.json per run (TAG: to keep a second call's files apart in
# one device command) and prints each MSM's median and phases.
# Pack here first:  bash bench/cuda/ab_device.sh --pack   (the base binary and the libraries)
set -u
AB=build-cuda/ab
if [ "${1:-}" = "--pack" ]; then
  mkdir -p "$AB/lib"
  cp -L build-cuda/dist/lib/* "$AB/lib/" 2>/dev/null || { echo "run bench/cuda/run_device.sh --pack first (for the libraries)" >&2; exit 1; }
  strip -o "$AB/snarkpipe-base" build-cuda/snarkpipe && xz -T0 -6 -f "$AB/snarkpipe-base"
  du -sh "$AB"
  exit 0
fi
OUT=${OUT:-/tmp/snarkpipe-ab-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$AB/lib:${LD_LIBRARY_PATH:-}"
for f in "$AB"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
for round in $(seq "${ROUNDS:-2}"); do
  for b in ${BINS:-base}; do
    json="$OUT/ab_${TAG:+${TAG}_}${b}_$round.json"
    timeout 200 "$AB/snarkpipe-$b" bench gpu --ntt "${NTT:-}" --g1 "${G1:-}" --g2 "${G2:-}" --h-poly "${HPOLY:-}" \
      --runs 5 --warmup 1 --json -o "$json" > /dev/null 2> "${json%.json}.log"
    echo "$b round $round exit $?"
    python3 - "$json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r.get("inputs", "device") == "device":
        print(f'  {r["op"]:7} 2^{r["log_n"]:<3} {r["median_ms"]:9.2f} ms  verified {r.get("verified")}  '
              + str({k: round(v, 1) for k, v in r.get("phases_ms", {}).items()}))
PY
  done
done
