/* store_reported.h: a result's reported object (the line llama-bench printed,
 * less its sample arrays) stored as a shared head and its own tail (schema
 * step 15), for store_runs.c.
 *
 * llama-bench prints what it ran with (build, devices, model, parameters)
 * before the test's own fields, which start at "n_prompt". The text before
 * `,"n_prompt":` is the head, kept once in reported_heads however many
 * results share it; the rest is the result's tail (results.reported_json,
 * results.reported_head naming its head). Read back, head || tail is the
 * text as it was, byte for byte; an object without that key is all tail.
 * Schema step 17: the tail's first three fields, n_prompt, n_gen and
 * n_depth, are the result's own columns; where the tail starts with them
 * exactly as those columns print them, they are left out of it (stored
 * once) and put back on reading: a tail that does not start with
 * ,"n_prompt": has lost them. */
#ifndef LVD_STORE_REPORTED_H
#define LVD_STORE_REPORTED_H

#include "store/store_internal.h"

/* What splitting the results of one write shares: the statements and the
 * last head (the results of a run share theirs). Zero-initialised is closed. */
typedef struct store_reported_writer {
    store_stmt *ins, *sel;
    char *last_head;
    int64_t last_id;
} store_reported_writer;

/* The SQL expression of the whole object in a results row aliased r joined
 * with "LEFT JOIN reported_heads h ON h.id = r.reported_head". */
#define STORE_REPORTED_SQL                                                                              \
    "CASE WHEN h.head IS NULL THEN r.reported_json"                                                     \
    " WHEN substr(r.reported_json, 1, 12) = ',\"n_prompt\":' THEN h.head || r.reported_json"             \
    " ELSE h.head || ',\"n_prompt\":' || r.n_prompt || ',\"n_gen\":' || r.n_gen || ',\"n_depth\":' || r.n_depth" \
    " || r.reported_json END"

/* Splits json (NULL: nothing reported) of a result of the test sizes
 * n[0..2] (n_prompt, n_gen, n_depth): *head_id is the id of its head in
 * reported_heads (recorded when new; 0 when it has none) and *tail points
 * into json at the rest, past the sizes when they are n's. 0, or -1 with
 * err. */
int store_reported_split(store *s, store_reported_writer *w, const char *json, const int n[3], int64_t *head_id,
                         const char **tail, lvd_err *err);
void store_reported_close(store_reported_writer *w);

#endif
