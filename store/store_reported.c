/* store_reported.c: a result's reported object split into the head it
 * shares with other results (reported_heads, stored once) and its own tail
 * (see store_reported.h). Not for the results rows (store_runs.c). */
#include "store/store_reported.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key that starts the test's own fields in a llama-bench object. */
#define TAIL_KEY ",\"n_prompt\":"

/* The id of head in reported_heads, inserted when it is not there. */
static int head_id_of(store *s, store_reported_writer *w, const char *head, size_t len, int64_t *id, lvd_err *err)
{
    if (w->last_head && strlen(w->last_head) == len && !memcmp(w->last_head, head, len)) {
        *id = w->last_id;
        return 0;
    }
    if ((!w->ins && store_prepare(s, "INSERT INTO reported_heads (head) VALUES (?1) ON CONFLICT (head) DO NOTHING",
                                  &w->ins, err)) ||
        (!w->sel && store_prepare(s, "SELECT id FROM reported_heads WHERE head = ?1", &w->sel, err)))
        return -1;
    char *text = lvd_xstrndup(head, len);
    store_bind_text(w->ins, 1, text);
    store_bind_text(w->sel, 1, text);
    int ok = store_step(w->ins) == STORE_DONE && store_step(w->sel) == STORE_ROW;
    *id = ok ? store_col_i64(w->sel, 0) : 0;
    store_reset(w->ins);
    store_reset(w->sel);
    if (!ok) {
        free(text);
        return store_fail(s, err, "cannot record the reported object");
    }
    free(w->last_head);
    w->last_head = text;
    w->last_id = *id;
    return 0;
}

/* tail past its test sizes when they are n's, printed as the reading SQL
 * prints the columns (store_reported.h), and a field or the end follows. */
static const char *past_sizes(const char *tail, const int n[3])
{
    char sizes[96];
    int len = snprintf(sizes, sizeof sizes, TAIL_KEY "%d,\"n_gen\":%d,\"n_depth\":%d", n[0], n[1], n[2]);
    if (len <= 0 || (size_t)len >= sizeof sizes || strncmp(tail, sizes, (size_t)len) ||
        (tail[len] != ',' && tail[len] != '}'))
        return tail;
    return tail + len;
}

int store_reported_split(store *s, store_reported_writer *w, const char *json, const int n[3], int64_t *head_id,
                         const char **tail, lvd_err *err)
{
    *head_id = 0;
    *tail = json;
    const char *at = json ? strstr(json, TAIL_KEY) : NULL;
    if (!at || at == json)
        return 0;
    if (head_id_of(s, w, json, (size_t)(at - json), head_id, err))
        return -1;
    *tail = past_sizes(at, n);
    return 0;
}

void store_reported_close(store_reported_writer *w)
{
    store_finalize(w->ins);
    store_finalize(w->sel);
    free(w->last_head);
    memset(w, 0, sizeof *w);
}
