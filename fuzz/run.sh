#!/usr/bin/env bash
# Fuzzes sylva's input loaders with libFuzzer, one target after another, seeded with the
# valid files the repository has, then minimises each corpus into fuzz/corpus/<target>
# (committed; tests/fuzz_corpus.rs replays it in the normal test suite).
#
#   fuzz/run.sh                      every target, 1,000,000 executions each
#   fuzz/run.sh 200000 session       one target, 200,000 executions
#   fuzz/run.sh 0                    no fuzzing: run and minimise the corpus only
#   FUZZ_SECONDS=300 fuzz/run.sh -1  every target for 5 minutes (scripts/fuzz)
#
# Works on the stable toolchain: cargo-fuzz's address sanitizer needs nightly, so the
# targets build with `--sanitizer none` (Rust's own bounds checks and debug assertions
# catch what matters in safe code). A crash is saved under fuzz/artifacts/<target>/ and
# stops the script; reproduce it with `cargo fuzz run --sanitizer none <target> <file>`.
set -euo pipefail
cd "$(dirname "$0")"
repo=$(cd .. && pwd)

runs=${1:-1000000}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(gltf_import cache_entry preset session lockfile catalog export_round_trip)
fi

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# FUZZ_TARGET_DIR: where the instrumented builds go (default fuzz/target).
fuzz() { cargo fuzz "$1" --sanitizer none -O --target-dir "${FUZZ_TARGET_DIR:-target}" "${@:2}"; }
fuzz build

journals=$(mktemp -d)
trap 'rm -rf "$journals"' EXIT

# Inputs are at most 64 KB: large inputs slow every execution down and bloat the
# committed corpus, and the small kit props (pebbles, grass, flowers, rocks: one
# generator made them all) and corpus files cover the same code as the large ones.
max_len=65536

# Seeds: the valid (and the hand-broken) files of the repository, added to the corpus
# (the minimisation at the end keeps those that add coverage).
seed() {
    local target=$1
    shift
    mkdir -p "corpus/$target"
    for file in "$@"; do
        if [ -f "$file" ] && [ "$(stat -c %s "$file")" -le $max_len ]; then
            cp -n "$file" "corpus/$target/seed-$(basename "$file")"
        fi
    done
}
seed gltf_import "$repo"/assets/*/*.glb "$repo"/tests/data/gltf/*.gl* "$repo"/tests/data/broken/*.gl*
seed preset "$repo"/presets/*.ron
seed lockfile "$repo"/sylva.lock
seed catalog "$repo"/assets/catalog.ron
(
    cd "$repo"
    # The demo bakes the kit into cache/ (not committed) when it is missing.
    cargo run -q -p sylva-cli -- demo --out "$journals" --width 64 --height 36 >/dev/null
    for preset in presets/*.ron; do
        stem=$(basename "$preset" .ron)
        cargo run -q -p sylva-cli -- paint --preset "$preset" --at meadow --radius 4 \
            --density 0.5 --save "$journals/$stem.session.ron" >/dev/null
    done
)
seed session "$journals"/*.session.ron
seed cache_entry "$repo"/cache/*.sylva "$repo"/cache/*.sylvatex "$repo"/engine/cache/tests/data/*.sylva*
# export_round_trip reads a placement count, that many (x, y, z, yaw, scale) f32
# records, then a cache entry: two placements, one near the origin, one a cell away.
mkdir -p corpus/export_round_trip
for entry in "$repo"/cache/*.sylva; do
    if [ "$(stat -c %s "$entry")" -le $max_len ]; then
        {
            printf '\x02'
            printf '\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x80\x3f'
            printf '\x00\x00\xc8\x42\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00\x00\x3f\x00\x00\x00\x40'
            cat "$entry"
        } >"corpus/export_round_trip/seed-$(basename "$entry")"
    fi
done

for target in "${targets[@]}"; do
    echo "== $target: $runs executions"
    mkdir -p "artifacts/$target"
    fuzz run "$target" "corpus/$target" -- \
        -runs="$runs" ${FUZZ_SECONDS:+-max_total_time=$FUZZ_SECONDS} -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        2>&1 | tee "artifacts/$target/last-run.log" | grep -E '^(#[0-9]+ +DONE|Done|stat::|==|INFO: seed corpus)' || true
    if ! grep -q '^Done' "artifacts/$target/last-run.log"; then
        echo "$target did not finish; see fuzz/artifacts/$target/" >&2
        exit 1
    fi
    # Keep only inputs that add edge coverage (not hit counts), and none over 32 KB: the
    # corpus is committed, and the large inputs are mutants of the repository's own
    # files, which the test suite loads anyway.
    fuzz cmin "$target" "corpus/$target" -- -max_len=$max_len -use_counters=0 >/dev/null 2>&1
    find "corpus/$target" -type f -size +32k -delete
    echo "   corpus: $(ls "corpus/$target" | wc -l) files, $(cat "corpus/$target"/* | wc -c) bytes"
done
