/* report.h: what lvd-bench prints about a finished session: per test a
 * ranking table (engine, backend, device, parameters, median t/s, ratio and
 * 95 % CI against the leader and the CPU arm, samples kept/dropped, status),
 * the decision of every test the objective decides on, the comparisons that
 * stayed undecided, failed, excluded and skipped arms; the same as JSON; and
 * the tool's exit code; and the end-of-session warning about measured
 * devices that have no correctness check. Not for running or deciding
 * anything. */
#ifndef LVD_BENCH_REPORT_H
#define LVD_BENCH_REPORT_H

#include "bench/session.h"

#include <stdio.h>

struct cJSON;
struct store;

/* The status word of arm i in test t's table: "leader", "slower" (the leader
 * wins against it), "tied", "open", "undecided", "excluded", "GPU FLAGS
 * IGNORED", "no samples". */
const char *bench_report_status(const bench_session *s, size_t t, size_t arm);

/* Prints the tables, decisions, undecided comparisons, failures, the flags
 * an arm's engine left out ("left out: ARM: ...", engine/argv.h) and skips
 * (colour through lvd_ansi). */
void bench_report_print(FILE *f, const bench_session *s);

/* The session as one JSON object (model, artifact, session, host,
 * objective, stop, rounds, wall_ms, runs, arms (with left_out only where
 * flags were left out), skipped, tests with their rankings and
 * comparisons, weighted ranking, undecided). Caller owns it. */
struct cJSON *bench_report_json(const bench_session *s);

/* Warns (lvd_warn as tool, one line per device) about every device the
 * session measured (an active GPU arm with an ok run) whose newest check
 * for (artifact, host, engine, device) in s is missing: its arms cannot
 * win a verdict (select/verdict.h: with such an arm faster, no verdict is
 * decided), and the line names the lvd check --model command to run. The
 * device is engine_check_device's (a GPU arm always carries its selector).
 * Returns how many devices it named, or -1 with err (the store failed). */
int bench_report_unchecked(const char *tool, struct store *s, const bench_session *bs, lvd_err *err);

/* LVD_EXIT_FAIL when nothing could be measured; LVD_EXIT_PARTIAL when an
 * arm failed, was excluded or ignored its GPU flags, or an engine was
 * skipped (all recorded); else LVD_EXIT_OK. */
int bench_report_exit(const bench_session *s);

#endif
