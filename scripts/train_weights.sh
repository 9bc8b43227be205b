#!/usr/bin/env bash
# Rebuilds weights (weights/flank-eval.bin) the way v6 was made (v8, the built-in weights, is
# v6 refitted by `flank refit` with the self-play corpus added: docs/eval.md, "Retraining"):
#   1. the linear pattern weights of the built-in evaluation are kept (`--base trained`; v6's
#      are those of the fourth version, fitted by `flank train` with 6 M search leaves) and a
#      32-unit residual net is trained for each empties count 2-9 on the labelled samples
#      (WTHOR, self-play, 48 M search leaves), which this step writes to a cache;
#   2. the net at 5 empties is retrained with 128 hidden units on 100 M extra search leaves at
#      5 empties (5 empties is where a depth-15 search from 20 empties and a depth-9 search
#      from 14 put their leaves; wider nets at every count would make a much larger file).
# The search-leaf walks follow the built-in weights (v5 when v6 was made, v8 now), so a rerun
# gives weights of the same quality, not the same bytes (docs/eval.md, "Retraining").
# A plain `flank train` refits the linear weights too and trains the 2-9 nets at 32 units
# (without the wider 5-empties net its held-out quality is below the built-in weights'; see
# docs/eval.md). About 60 min (step 1 about 21, step 2 about 35) and 7 GB of memory on 2 cores.
# The output has no midgame ProbCut table (`flank train` writes none), so it searches without
# midgame ProbCut until calibrated as the built-in file was (docs/eval.md, "Retraining"):
#   target/release/flank mpc-calibrate --eval OUT --positions 1000 --max-depth 12 --seed 7 \
#     --out weights/flank-eval.bin
# Usage: scripts/train_weights.sh [OUT] (default weights/flank-eval.bin); then calibrate and
# rebuild.
# The labelled samples are cached in $FLANK_SAMPLES (default $TMPDIR/flank-samples.bin) and
# reused if that file exists: delete it to relabel.
set -euo pipefail
out="$(realpath -m "${1:-$(dirname "$0")/../weights/flank-eval.bin}")"
cd "$(dirname "$0")/.."
samples="${FLANK_SAMPLES:-${TMPDIR:-/tmp}/flank-samples.bin}"
step1="${TMPDIR:-/tmp}/flank-weights-step1.bin"
cargo build --release
flank="${CARGO_TARGET_DIR:-target}/release/flank"
"$flank" train --samples "$samples" --base trained --net-phases none --net-empties 2-9 \
    --out "$step1"
"$flank" train --samples "$samples" --base "$step1" --net-phases none --net-empties 5 \
    --net-hidden 128 --net-leaf-samples 100000000 --out "$out"
echo "wrote $out (samples cache $samples; delete it to relabel)"
