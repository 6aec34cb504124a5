/* overlap.h: the check that a night measured alone. After a bench step the
 * nightly compares its session's runs with every other session's runs on the
 * host: two whose spans (start, start + wall) share more than
 * NIGHT_OVERLAP_SLACK_S seconds ran at the same time (a process the device
 * lock did not stop: another store, a tool from before the lock), and the
 * night says so and counts as partial. Not for preventing overlap (the device
 * lock, engine/devlock.h). */
#ifndef LVD_NIGHT_OVERLAP_H
#define LVD_NIGHT_OVERLAP_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

/* started_at is in whole seconds and wall rounds up: sequential runs can seem
 * to share up to 2 s. */
#define NIGHT_OVERLAP_SLACK_S 2

/* How many of session's runs on host overlapped another session's run (the
 * first such pair described in msg, when given). since bounds the runs read
 * (started_at >= since). 0.., or -1 with err when the store fails. */
int night_overlaps(const char *store_path, const char *session, const char *host, int64_t since,
                   char *msg, size_t len, lvd_err *err);

#endif
