#!/usr/bin/env bash
# GPU tier: the seed record's scenarios on the real device, then an Engine
# pass-to-pass check for each fix backend. Run from the repo root on a CUDA machine
# whose sglang env is built (python -m repro.envs.build sglang-0.5.23).
# Writes reports under ${OUT:-bench/out/gpu}; exits non-zero if any step failed,
# and 3 when there is no CUDA device (nothing checked is not a pass).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
OUT=${OUT:-bench/out/gpu}
RECORD=${RECORD:-data/records/sglang.jsonl}
mkdir -p "$OUT"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run_gpu_checks: no CUDA device (nvidia-smi finds none); nothing was checked" >&2
  exit 3
fi
nvidia-smi -L

"$PY" -m repro.envs.build sglang-0.5.23
status=0
echo "== scenarios on the real device"
"$PY" -m repro run --record "$RECORD" --platform real --repeats 3 >"$OUT/real.json" || status=$?

echo "== engine pass-to-pass checks"
for backend in ${BACKENDS:-triton flashinfer fa3 auto}; do
  "$PY" - "$backend" >"$OUT/engine-$backend.json" <<'PYEOF' || status=$?
import json, sys
from repro.runner import run_harness
report = run_harness("engine_check", "sglang-0.5.23", {"backend": sys.argv[1]},
                     module="repro.gpu.engine_check", timeout_s=600, memory_bytes=None)
json.dump(report, sys.stdout, indent=2)
outcome = (report.get("result") or {}).get("outcome")
print(f"engine {sys.argv[1]}: {report['outcome']} {outcome}", file=sys.stderr)
sys.exit(0 if outcome == "PASS" else 1)
PYEOF
done
exit $status
