/* store_samples.h: a result's samples packed into one TEXT column
 * (results.samples, schema step 15) and read back, for the store_*.c files.
 *
 * The text is one token per sample in run order, separated by one space:
 *   [*][NS]:TS
 * '*' marks a warm-up sample (kept, never scored). TS is the t/s value in the
 * shortest decimal that reads back as the same double. NS is the sample's
 * nanoseconds: empty when unknown; '=' and the value (what migration 15
 * writes); else the difference from the value TS predicts (tokens * 1e9 / TS
 * rounded, tokens = n_prompt + n_gen; store_samples_predict), a number of a
 * few digits since llama-bench derives TS from NS. Example (tg128, two
 * samples, the first a warm-up): "*-1204:50.123 37:49.871". */
#ifndef LVD_STORE_SAMPLES_H
#define LVD_STORE_SAMPLES_H

#include "common/types.h"
#include "common/util.h"

#include <stdint.h>

/* The nanoseconds that tokens at ts t/s predict (0 when there is no
 * prediction): what a stored NS is the difference from. */
int64_t store_samples_predict(int tokens, double ts);

/* r's samples as text (malloc'd; "" for none), or NULL with err when a t/s
 * value is not finite (path names the store). */
char *store_samples_encode(const char *path, const lvd_result *r, lvd_err *err);

/* Fills x->n, x->ns (-1 = unknown), x->ts and x->warmup from text (NULL is
 * no sample), predicting from x->n_prompt + x->n_gen. 0, or -1 with err
 * naming the store (path) and the result when the text is malformed. */
int store_samples_decode(const char *path, const char *text, lvd_result *x, lvd_err *err);

/* What prices read of a result's samples: how many, the sum and largest of
 * the known ns, the warm-ups, and the ns of the kept (scored) samples. */
typedef struct store_sample_totals {
    int n;
    int64_t ns_sum, ns_max, kept_ns;
    int warmups;
} store_sample_totals;
int store_samples_totals(const char *path, const char *text, int tokens, store_sample_totals *out,
                         lvd_err *err);

#endif
