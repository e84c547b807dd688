#!/usr/bin/env bash
# The GPU checks of the playout kernel, as one run on a machine with an NVIDIA GPU and CuPy:
# Simulate over gRPC with `serve --gpu` (columns and summaries), `bench` (native-batch
# beside gpu-batch, with the statistics check of 100,000 playouts), and a sweep of the
# launch's thread count on the larger networks. Writes its logs under $OUT.
#   scripts/gpu_device_check.sh [FOLDER holding reversi.kif and breakthrough.kif]
set -uo pipefail
extra=${1:-../shared/corpus/ggp-repository}
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
inc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
for m in _native _threads; do
  gcc -O3 -std=c99 -shared -fPIC -I"$inc" reasoner/propnet/$m.c -o reasoner/propnet/$m$suffix \
    || echo "build of $m failed"
done
timeout 60 python3 scripts/grpc_simulate.py games/tictactoe.kif --gpu --rounds 5 \
  > "$OUT/grpc.log" 2> "$OUT/grpc-server.log"; cat "$OUT/grpc.log"
games="games/tictactoe.kif games/connectfour.kif $extra/reversi.kif $extra/breakthrough.kif"
timeout ${BENCH_SECONDS:-170} python3 -m reasoner.cli bench $games --backends native-batch,gpu-batch \
  --runs 3 --seconds 2 2>&1 | tee "$OUT/bench.log"
timeout ${TUNE_SECONDS:-40} python3 scripts/gpu_tune.py $extra/reversi.kif $extra/breakthrough.kif \
  --blocks 128 --factors 0.25,0.5 --runs 1 --per-thread 64 2>&1 | tee "$OUT/tune.log"
