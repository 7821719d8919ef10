#!/usr/bin/env bash
# Fuzzes the parsers and the show-notes sanitizer (issue 14, "Keep it true"; issue 27): builds Sources/feedctl-fuzz with libFuzzer and
# AddressSanitizer, then mutates the seed corpus (fuzz/corpus) for a bounded time.
#   scripts/fuzz.sh [SECONDS]        default 60; exits non-zero on a crash, leak-free hang or
#                                    sanitizer report, leaving the input in .build/fuzz/crash-*
# Replay a saved input with the plain build: .build/debug/feedctl-fuzz .build/fuzz/crash-…
#
# Built with swiftc directly, not SwiftPM: the sanitizer flags would otherwise rebuild the whole
# package (and its dependencies) in a second build tree. Only the modules the parsers need are
# compiled (FeedText, FeedModel, FeedParsing, the target), with libxml2 as the system has it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
seconds="${1:-60}"
out=.build/fuzz
mkdir -p "$out"
flags=(-O -g -wmo -parse-as-library -swift-version 6 -package-name feedctl -sanitize=fuzzer,address
       -I "$out" -I Sources/CLibXML2 -Xcc -I/usr/include/libxml2)

module() {  # NAME: compiles Sources/NAME into $out/NAME.o and its .swiftmodule
    local name="$1"
    mapfile -t files < <(find "Sources/$name" -name '*.swift' | sort)
    swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" \
        -c "${files[@]}" -o "$out/$name.o"
}

echo "== building the fuzz target (libFuzzer, ASan)"
build() {
    module FeedText
    module FeedModel
    module FeedParsing
    swiftc "${flags[@]}" -D FUZZING -module-name feedctl_fuzz Sources/feedctl-fuzz/*.swift \
        "$out/FeedText.o" "$out/FeedModel.o" "$out/FeedParsing.o" -lxml2 -o "$out/feedctl-fuzz"
}
# The log is shown only on failure (gold warns about ASan's local symbols on every link).
if ! build > "$out/build.log" 2>&1; then
    cat "$out/build.log" >&2
    exit 1
fi

# New inputs go to a scratch corpus (the repository's seeds stay as they are).
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "== fuzzing the parsers for ${seconds} s over fuzz/corpus ($(ls fuzz/corpus | wc -l) seeds)"
# -timeout: one input taking 20 s is a hang (the parse budget is 2 s); -rss_limit_mb: memory
# bound per run; -max_len: mutations stay small enough to run many.
status=0
ASAN_OPTIONS=detect_leaks=0 "$out/feedctl-fuzz" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/crash-" "$work" fuzz/corpus > "$out/fuzz.log" 2>&1 || status=$?
grep -E "^(stat::|Done|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written)" "$out/fuzz.log" || true
if [ "$status" -ne 0 ]; then
    tail -n 60 "$out/fuzz.log" >&2
    echo "fuzz: the parsers failed on an input (saved as $out/crash-*; replay with .build/debug/feedctl-fuzz FILE)" >&2
    exit "$status"
fi
echo "== fuzz: no crash in ${seconds} s"
