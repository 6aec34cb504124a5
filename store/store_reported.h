/* store_reported.h: a result's reported object (the line llama-bench printed,
 * less its sample arrays) stored as a shared head and its own tail (schema
 * step 15), for store_runs.c.
 *
 * llama-bench prints what it ran with (build, devices, model, parameters)
 * before the test's own fields, which start at "n_prompt". The text before
 * `,"n_prompt":` is the head, kept once in reported_heads however many
 * results share it; the rest is the result's tail (results.reported_json,
 * results.reported_head naming its head). Read back, head || tail is the
 * text as it was, byte for byte; an object without that key is all tail. */
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
#define STORE_REPORTED_SQL "CASE WHEN h.head IS NULL THEN r.reported_json ELSE h.head || r.reported_json END"

/* Splits json (NULL: nothing reported): *head_id is the id of its head in
 * reported_heads (recorded when new; 0 when it has none) and *tail points
 * into json at the rest. 0, or -1 with err. */
int store_reported_split(store *s, store_reported_writer *w, const char *json, int64_t *head_id,
                         const char **tail, lvd_err *err);
void store_reported_close(store_reported_writer *w);

#endif
