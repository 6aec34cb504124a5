/* store_newest.h: the newest session of each arm (artifact x engine x arm
 * key) on a host, found by index, so a reader of "each arm's newest session"
 * (select/armset.h) lists those sessions' runs and not the year behind them.
 * Not for listing runs (store.h store_run_list). */
#ifndef LVD_STORE_NEWEST_H
#define LVD_STORE_NEWEST_H

#include "common/types.h"
#include "store/store.h"

/* One arm and the session of its newest run (latest started_at, ties: the
 * higher id); a hunt's sessions (STORE_HUNT_SESSION_PREFIX) are not runs of
 * an arm here, as in store_run_list without a session. */
typedef struct store_arm_session {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    int64_t engine_id;
    char *arm_key;
    char *session;          /* NULL: that run carries no session */
} store_arm_session;

/* The arms of host (required) with runs of artifact (NULL: any), engine (0:
 * any) and arm key (NULL: any), ordered by artifact, engine id, arm key
 * (store_arm_session_find), each with its newest session. 0 or -1 (err). */
int store_arm_newest_sessions(store *s, const char *artifact, const char *host, int64_t engine_id,
                              const char *arm_key, store_arm_session **out, size_t *n, lvd_err *err);
/* The arm of v[0..n) (as ordered above) with this artifact, engine, key; NULL when none. */
const store_arm_session *store_arm_session_find(const store_arm_session *v, size_t n, const char *artifact,
                                                int64_t engine_id, const char *arm_key);
void store_arm_sessions_free(store_arm_session *v, size_t n);

/* The runs of arm a's session a->session on host, oldest first (started_at,
 * then id), bare: id, artifact, engine, arm key, session, host, status and
 * start, each with its results' test, sizes and backends (no samples, no
 * parameters): what the launch line reads of a measured arm, in one query
 * (select/armset.h sel_armset_load_shape). Free with store_run_list_free.
 * 0 or -1 (err). */
int store_arm_session_shape(store *s, const store_arm_session *a, const char *host, lvd_run **out, size_t *n,
                            lvd_err *err);

#endif
