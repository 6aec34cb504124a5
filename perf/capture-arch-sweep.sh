#!/usr/bin/env bash
# Captures what a real llama.cpp build allocates for each model of MODEL_DIR
# (the arch-*.gguf of perf/make-arch-models.py) across
# ctx {4096, 16384, 32768} x ubatch {512, 2048} x flash attention {on, off}
# x slots {-np 1, -np 4, -np 4 -kvu}, appending to OUTFILE:
#
#   $ llama-fit-params -m NAME.gguf -c C -ub U -b U -fa on|off -ngl 99 --fit-print on
#   <its stdout, verbatim: the Host / device lines>           (once per model, C, U, fa)
#   $ llama-server -m NAME.gguf -c C -ub U -b U -fa on|off -np N [-kvu] -ngl 99 -lv 4
#   <the log lines stating buffer sizes and the context's settings, verbatim>
#
# or, where a load fails, the `$ ...` line then `# failed: <its last error line>`.
# Each llama-server also gets `-t 1 --host 127.0.0.1 --port PORT` (not written
# to OUTFILE), runs under a timeout, and is stopped once it has loaded the
# model (`model loaded` / `listening on`), i.e. after its buffers and the
# warm-up. Loads run one at a time. The lines kept are those matching
# PATTERN below (model / KV / RS / compute / output buffer sizes, the
# llama_context settings, n_swa, the KV cache and recurrent memory lines
# with `cells`; on a build with a device also the device it used and the
# layers it offloaded, lines a CPU-only build never logs).
# tests/fixtures/llama.cpp/arch-sweep-b10587-cpu/ and -vulkan/ were made
# this way; this script never builds llama.cpp.
#
# Usage: capture-arch-sweep.sh ENGINE_BIN_DIR MODEL_DIR OUTFILE
# Environment: passed on to both tools (a Vulkan build on Mesa's lavapipe
# needs GGML_VK_VISIBLE_DEVICES=0). MODELS="gpt-oss qwen3next" (default:
# every arch-*.gguf in MODEL_DIR, by name), CTXS, UBS, FAS (default the
# sweep above), PORT (18931), LOAD_TIMEOUT (seconds per load, 300), EXTRA
# (more arguments for both tools, e.g. "-nr"; written into the `$` lines
# before -ngl), SERVER_EXTRA (the same for llama-server alone, after EXTRA,
# e.g. "--no-warmup"), STOP_AT (the log line, an extended regex, after
# which llama-server is stopped; default `model loaded` / `listening on`;
# `warming up the model` stops it once every buffer is logged, before the
# first compute, which a software device may take many minutes over).
set -u

if [ $# -ne 3 ]; then
    sed -n '2,34p' "$0" >&2
    exit 2
fi
BIN=$1
MDIR=$2
OUT=$3
PORT=${PORT:-18931}
LOAD_TIMEOUT=${LOAD_TIMEOUT:-300}
CTXS=${CTXS:-"4096 16384 32768"}
UBS=${UBS:-"512 2048"}
FAS=${FAS:-"on off"}
EXTRA=${EXTRA:-}
SERVER_EXTRA=${SERVER_EXTRA:-}
STOP_AT=${STOP_AT:-'main: model loaded|llama_server: model loaded|listening on '}
PATTERN='model buffer size|KV buffer size|RS buffer size|compute buffer size|output buffer size|llama_context: n_ctx |n_ctx_seq|n_ubatch|flash_attn|n_seq_max|kv_unified|n_outputs_max|n_rs_seq|n_swa|llama_kv_cache.*cells|llama_memory_recurrent.*cells|: using device |offloaded [0-9]+/[0-9]+ layers'

for tool in llama-server llama-fit-params; do
    [ -x "$BIN/$tool" ] || { echo "no $BIN/$tool" >&2; exit 1; }
done

if [ -n "${MODELS:-}" ]; then
    names=$MODELS
else
    names=$(find "$MDIR" -maxdepth 1 -name 'arch-*.gguf' -printf '%f\n' | sed 's/^arch-//; s/\.gguf$//' | sort)
fi

export GGML_NO_BACKTRACE=1  # an abort's gdb backtrace would only slow a failed load
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capture-arch-sweep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

last_error() {  # the last line of $1 saying what went wrong (none: empty)
    grep -aiE 'error|failed|exception|abort|assert|what\(\)' "$1" 2>/dev/null | grep -avE '^#[0-9]|^\[' | tail -n 1
}

# Each tool's output goes to a scratch file that the shell holds open (fd 3)
# and reads back through /proc/$$/fd/3, so the capture survives the file
# being unlinked meanwhile; a run that left neither the expected lines nor an
# error line is retried (up to 3 times).

fit_print() {  # NAME C U FA
    local m=$1 c=$2 u=$3 fa=$4 rc try err
    printf '$ llama-fit-params -m arch-%s.gguf -c %s -ub %s -b %s -fa %s%s -ngl 99 --fit-print on\n' \
        "$m" "$c" "$u" "$u" "$fa" "${EXTRA:+ $EXTRA}" >>"$OUT"
    for try in 1 2 3; do
        mkdir -p "$tmp"
        : >"$tmp/fit.err"
        exec 3<"$tmp/fit.err"
        # shellcheck disable=SC2086  # $EXTRA: words
        timeout "$LOAD_TIMEOUT" "$BIN/llama-fit-params" -m "$MDIR/arch-$m.gguf" -c "$c" -ub "$u" -b "$u" \
            -fa "$fa" $EXTRA -ngl 99 --fit-print on >"$tmp/fit.out" 2>"/proc/$$/fd/3"
        rc=$?
        if [ $rc -eq 0 ] && grep -aq . "$tmp/fit.out" 2>/dev/null; then
            cat "$tmp/fit.out" >>"$OUT"
            exec 3<&-
            return
        fi
        err=$(last_error "/proc/$$/fd/3")
        exec 3<&-
        [ -n "$err" ] && break
        echo "  retry $try: llama-fit-params exit $rc, no output" >&2
    done
    printf '# failed: %s\n' "${err:-no output (exit status $rc)}" >>"$OUT"
}

serve() {  # NAME C U FA NP [-kvu]
    local m=$1 c=$2 u=$3 fa=$4 np=$5 kvu=${6:-} pid waited ok rc try err log
    printf '$ llama-server -m arch-%s.gguf -c %s -ub %s -b %s -fa %s -np %s%s%s%s -ngl 99 -lv 4\n' \
        "$m" "$c" "$u" "$u" "$fa" "$np" "${kvu:+ $kvu}" "${EXTRA:+ $EXTRA}" "${SERVER_EXTRA:+ $SERVER_EXTRA}" >>"$OUT"
    for try in 1 2 3; do
        mkdir -p "$tmp"
        : >"$tmp/srv.log"
        exec 3<"$tmp/srv.log"
        log=/proc/$$/fd/3
        # shellcheck disable=SC2086  # $kvu: one optional word, $EXTRA, $SERVER_EXTRA: words
        "$BIN/llama-server" -m "$MDIR/arch-$m.gguf" -c "$c" -ub "$u" -b "$u" -fa "$fa" -np "$np" $kvu $EXTRA $SERVER_EXTRA \
            -ngl 99 -lv 4 -t 1 --host 127.0.0.1 --port "$PORT" >>"$log" 2>&1 &
        pid=$!
        waited=0
        ok=0
        while kill -0 "$pid" 2>/dev/null; do
            if grep -aqE "$STOP_AT" "$log"; then
                ok=1
                break
            fi
            if [ "$waited" -ge $((LOAD_TIMEOUT * 5)) ]; then
                break
            fi
            sleep 0.2
            waited=$((waited + 1))
        done
        kill -TERM "$pid" 2>/dev/null
        # a server that ignores SIGTERM for 10 s gets SIGKILL
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        rc=$?
        if [ $ok -eq 1 ] && grep -aqE "$PATTERN" "$log"; then
            grep -aE "$PATTERN" "$log" >>"$OUT"
            exec 3<&-
            return
        fi
        if [ "$waited" -ge $((LOAD_TIMEOUT * 5)) ]; then
            err="no \"${STOP_AT}\" within $LOAD_TIMEOUT s"
        else
            err=$(last_error "$log")
        fi
        exec 3<&-
        [ -n "$err" ] && break
        echo "  retry $try: llama-server exit $rc, neither buffers nor an error logged" >&2
    done
    printf '# failed: %s\n' "${err:-no output (exit status $rc)}" >>"$OUT"
}

for m in $names; do
    [ -f "$MDIR/arch-$m.gguf" ] || { echo "no $MDIR/arch-$m.gguf" >&2; exit 1; }
    for c in $CTXS; do
        for u in $UBS; do
            for fa in $FAS; do
                echo "$(date -u +%H:%M:%S) $m c=$c ub=$u fa=$fa" >&2
                fit_print "$m" "$c" "$u" "$fa"
                serve "$m" "$c" "$u" "$fa" 1
                serve "$m" "$c" "$u" "$fa" 4
                serve "$m" "$c" "$u" "$fa" 4 -kvu
            done
        done
    done
done
