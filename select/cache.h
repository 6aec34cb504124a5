/* cache.h: lvd select's answer cache. A warm `lvd select` at service start
 * is asked the same question again and again; the answer depends on the
 * store, the model file, the engines' files, the pin file, the options and
 * the environment, all of which can be checked in a few stats and reads.
 * So the first plain select of a question keeps its whole output (stdout,
 * stderr, exit code) in a file beside the store, keyed by all of that, and
 * the next ones print it without opening SQLite, provided nothing it
 * depends on changed. Not for what the key holds (cache_key.c: the request
 * and the state it records) nor for the store's stamp (store/stamp.h).
 *
 * Where: the directory STORE-select beside the store file (STORE-wal and
 * STORE-shm are SQLite's), one file per question: its name is a hash of the
 * request (the executable, the options, the environment, the host, the
 * terminal), so a store change rewrites the same file. A file holds the
 * request itself (compared byte for byte), the state (the store's stamp,
 * the model's and the profile's and the pin file's stats), the engine files
 * the selection checked with their stats, the exit code, the output and a
 * checksum; a file that does not parse or check out is a miss, and so is
 * one that group or others could have written (it or its directory), or
 * that neither this user nor the store's owner owns: its launch line is
 * what a service runs.
 * What is never kept: --record and --artifact runs (they write; a --record
 * run then keeps the answer of the plain select with the same options, the
 * nightly's last step, so that a service starting after the night hits),
 * PostgreSQL stores, a run that did not exit 0, a run during which the
 * store's stamp changed, and a run whose files changed in the current clock
 * tick (a later change in that tick would not move their timestamps).
 * LVD_SELECT_CACHE=off neither reads nor writes the cache. A failure to
 * write it is silent: the answer was printed. */
#ifndef LVD_SEL_CACHE_H
#define LVD_SEL_CACHE_H

#include "common/util.h"
#include "store/store.h"

/* The question, as the command line put it. */
typedef struct sel_cache_ask {
    const char *store;   /* the store's path (store_default_path) */
    const char *model;   /* --model as given */
    const char *first;   /* its first shard: the file the selection reads */
    const char *profile; /* --profile FILE, or NULL */
    const char *options; /* every other option, as canonical text */
} sel_cache_ask;

typedef struct sel_cache_miss sel_cache_miss;

/* A hit prints the kept stderr and stdout and returns the kept exit code;
 * -1 is a miss (nothing printed). */
int sel_cache_serve(const sel_cache_ask *a);

/* Before a full selection: what the answer will be kept against, or NULL
 * when it cannot be kept. settle: when the store's files changed in the
 * current tick, wait (a few ms at most) for the next one instead of giving
 * up (after a --record, which just wrote them). */
sel_cache_miss *sel_cache_begin(const sel_cache_ask *a, int settle);

/* After the selection, with the store still open: notes the engines' files
 * (every registered engine's file set, and the directories it was read
 * from) that the selection checked on disk. */
void sel_cache_watch(sel_cache_miss *m, store *s);

/* After the store was closed: keeps the answer (exit code, stdout bytes,
 * stderr bytes) when the store's stamp did not change since
 * sel_cache_begin; frees m (NULL: nothing). */
void sel_cache_keep(sel_cache_miss *m, int exit_code, const lvd_sb *out, const lvd_sb *err);

/* --- the key (cache_key.c) --------------------------------------------- */

/* The request: the executable, the ask, the host, the terminal and the
 * environment select reads. malloc'd text; NULL when the executable cannot
 * be stat'ed (no /proc): then nothing is kept. */
char *sel_cache_request(const sel_cache_ask *a);

/* The state: the store's stamp, the model's path and stats, the profile's
 * and the pin file's. 0, or -1 when there is none (a remote store, ...).
 * *newest_ns: the newest timestamp among those files. */
int sel_cache_state(const sel_cache_ask *a, lvd_sb *out, int64_t *newest_ns);

/* The watch list: "PATH\tSTATS\n" per engine file and directory of every
 * registered engine. 0, or -1 (a path with a tab or newline, a store error). */
int sel_cache_watch_list(store *s, lvd_sb *out, int64_t *newest_ns);

/* Whether every file of a watch list still has its recorded stats. */
int sel_cache_watch_holds(const char *list, size_t len);

#endif
