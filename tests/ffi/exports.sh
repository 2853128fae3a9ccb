#!/usr/bin/env bash
# The two libraries' dynamic symbol tables: exactly the ABI of each (src/ffi/supraseal_c2.h).
set -euo pipefail
common="clone_SRS create_SRS drop_SRS evict_SRS generate_groth16_proofs_c"
want_supraseal=$(echo $common | tr ' ' '\n' | sort)
want_cuzk=$(echo $common create_gpu_mutex destroy_gpu_mutex destroy_pending_proof finalize_groth16_proof_c \
  generate_groth16_proofs_start_c | tr ' ' '\n' | sort)
exported() { nm -D --defined-only "$1" | awk '$2 ~ /^[TWDBRV]$/ {print $3}' | grep -v '^_\(init\|fini\)$' | sort; }
status=0
for pair in "$1:$want_supraseal" "$2:$want_cuzk"; do
  lib=${pair%%:*}; want=${pair#*:}
  got=$(exported "$lib")
  if [ "$got" != "$want" ]; then
    echo "FAIL: $lib exports:"; diff <(echo "$want") <(echo "$got") || true; status=1
  else
    echo "ok: $(basename "$lib") exports exactly $(echo "$want" | wc -l) ABI symbols"
  fi
done
exit $status
