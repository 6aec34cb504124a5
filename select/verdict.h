/* verdict.h: the verdict for one model on one host: which arm (engine x
 * device x parameters) serves a stated objective best, from what the newest
 * bench session recorded in the store, and the fingerprint that says when
 * the verdict stops being true. Written by `lvd select --record` (the
 * nightly, after lvd bench); read by selection rule 2 (select.h).
 *
 * Which runs: every run of the newest bench session (the session of the
 * newest run) for (artifact, host). Arms are (engine, arm key).
 *
 * Who may win (the others are shown in stats_json, never ranked):
 *   - an arm all of whose runs in the session have status "ok": a failed
 *     run (crash, timeout, garbage) or a gpu_ignored one (GPU flags asked,
 *     CPU speed delivered) excludes the arm;
 *   - an arm whose device passed its correctness check: the newest check of
 *     (artifact, host, engine, device) has status "pass". A device with no
 *     check ("unchecked") may not win either: design.md admits a device
 *     only after it reproduced the CPU's result, and a verdict must not
 *     promote what nobody verified. But unchecked is not failed: a verdict
 *     never rests on what was not measured (rule "undecided: faster arms
 *     unchecked" below). The CPU arm (no device) is the
 *     reference and needs no check. The device a check is looked up under
 *     is engine_check_device's (select/engines.h): an arm without -dev ran on
 *     the engine's default device, the probe's first, or "auto" when no
 *     probe lists one (an imported engine; lvd check --import records
 *     under the same name).
 *
 * Look: the ranking is taken at the session's last look (stats_rule.look =
 * the most runs of any arm in the session: its rounds), not at look 1, so the
 * sequential error bound covers the session that gathered the samples (JSON
 * "look").
 * Ranking (stats/rank.h) on the kept (non-warm-up) samples of one test per
 * objective: tg, pp, or both weighted (w=W). When the session measured
 * several tests of a kind (tg128, tg256), the one most arms have samples
 * of is used (ties: first seen).
 *
 * Rules (lvd_verdict.rule):
 *   "win"        the leader wins against every other ranked arm;
 *   "only-arm"   one eligible arm had samples;
 *   "tie: kept previous verdict" / "tie: kept heuristic choice" /
 *   "tie: leader"
 *                the leader ties with some arms (hysteresis, no flapping):
 *                among the tied arms keep the previous verdict's winner when
 *                it is one of them; else the arm the heuristic
 *                (select/heuristic.h) chooses among the tied arms' devices;
 *                else the leader;
 *   "undecided: kept previous verdict" / "undecided: kept heuristic choice" /
 *   "undecided: leader"
 *                the statistics did not decide (more rounds were needed, or
 *                the ratio sits on a threshold): the same hysteresis among
 *                the leader and every arm the leader did not beat;
 *   "undecided: faster arms unchecked (run lvd check)"  (SEL_VERDICT_UNCHECKED)
 *                applied after every rule above: an arm excluded only
 *                because its device has no check scores above the winner
 *                (or no eligible arm has samples and an unchecked one has):
 *                no win is recorded for the slower arm (engine_id 0, the
 *                explanation names the fastest unchecked arm), so selection
 *                falls through to its heuristic. An arm whose check failed
 *                or errored stays excluded and the slower arm may win;
 *   "no-arm"     nothing may win (no eligible arm has samples of the
 *                objective's tests); engine_id 0, recorded so that the
 *                history says so; selection ignores it.
 *
 * Fingerprint: a JSON array, one object per engine compared (every engine
 * with a run in the session):
 *   {"set", "id", "name", "build", "dir", "files": [{"path", "mtime_ns", "size"}]}
 * set = the engine's whole file set (engine/files.h: launchers, shared
 * libraries, backend modules) as engine_files_key records it, null when
 * DIR could not be read; files = the binaries its runs used (llama-bench)
 * and DIR/llama-server; mtime_ns and size are -1 for a file that could not
 * be stat'ed. A file of the set that changed (size, mtime, inode), appeared
 * or is gone makes the verdict stale, named relative to DIR: "engine
 * b9749-cpu: libggml-cpu.so.0 changed since the verdict (mtime)". */
#ifndef LVD_SEL_VERDICT_H
#define LVD_SEL_VERDICT_H

#include "common/types.h"
#include "common/util.h"
#include "select/engines.h"
#include "stats/rank.h"
#include "store/store.h"

#include <stddef.h>

/* The rule of a verdict that recorded no winner because faster arms are unchecked. */
#define SEL_VERDICT_UNCHECKED "undecided: faster arms unchecked (run lvd check)"

typedef struct sel_verdict_opts {
    stats_objective objective;   /* default tg */
    const char *host;          /* NULL = lvd_hostname() */
    const char *session;       /* NULL = the newest session */
} sel_verdict_opts;

/* Defaults: tg, this host, the newest session. */
void sel_verdict_opts_init(sel_verdict_opts *o);

/* Computes the verdict for artifact (rules above) into out (free with
 * lvd_verdict_free); out->id stays 0 (not recorded). Returns 0, 1 when there
 * is no run of artifact on host (nothing to decide; err says so), or -1
 * with err when the store or the statistics failed. */
int sel_verdict_compute(store *s, const char *artifact, const sel_verdict_opts *o,
                        lvd_verdict *out, lvd_err *err);

/* sel_verdict_compute, then store_verdict_put. Same returns. */
int sel_verdict_record(store *s, const char *artifact, const sel_verdict_opts *o,
                       lvd_verdict *out, lvd_err *err);

/* The fingerprint (format above) of every engine of es with one of
 * runs[0..n_runs) (their binaries, and DIR/llama-server), files stat'ed now.
 * Caller frees. */
char *sel_fingerprint_make(const lvd_run *runs, size_t n_runs, const sel_engines *es);

/* Whether a recorded fingerprint still describes the engines: each engine is
 * still registered under the same id with the same build and directory, its
 * file set is the recorded one, and each file has the recorded mtime and
 * size (directory listing and stat only). Returns 1 when it
 * does, 0 when not (why says which engine and file changed), -1 when the
 * fingerprint is not a fingerprint (why says so). */
int sel_fingerprint_valid(const sel_engines *es, const char *fingerprint, char *why, size_t len);

#endif
