/* config.h: the nightly job's configuration: which models, which pin file and
 * flavours, which candidate, what to measure and where the evidence goes. Read
 * from a `key = value` file (common/kv.h) or the built-in default. Not for
 * running anything (see nightly/nightly.h). */
#ifndef LVD_NIGHT_CONFIG_H
#define LVD_NIGHT_CONFIG_H

#include "common/util.h"

#include <stddef.h>

typedef struct night_config {
    char *source;        /* the config file, or "built-in default" */
    int is_default;
    char **models;       /* absolute paths */
    size_t n_models;
    char *pin_file;      /* absolute path */
    char **flavours;     /* flavours to fetch; empty = the pin's own */
    size_t n_flavours;
    char *candidate;     /* "latest", "none" or a build "bNNNN" */
    char *min_age;       /* for candidate = latest */
    char *tests;         /* llama-bench tests, "pp512,tg128" */
    int ctx;             /* the context served: lvd bench's and lvd select's --ctx; -1 (default):
                          * unset, lvd select's default, and the bench measures at half of it */
    char *depth;         /* lvd bench's --depth list ("0,4096"); NULL: derived from ctx */
    char *budget;        /* per model, "15m" */
    int max_samples;     /* per arm */
    int reps;            /* --reps for lvd bench; 0 (default): unset, the cost model chooses -r */
    char *objective;     /* tg | pp | W */
    char *evidence;      /* the evidence page path (absolute) */
    char *log;           /* the log file (absolute) */
    char *fallback_store; /* the local SQLite store a night records into when its
                           * PostgreSQL store cannot be opened (default: the state path's store.db) */
    char *builds_dir;    /* NULL = lvd-fetch's default */
    int fetch;           /* 0: never touch the network */
    int discover;        /* 1: find and register the engines on the box before probing */
    int promote;         /* 1: rewrite the pin file when the rule promotes */
    int step_timeout_s;  /* limit for each step but bench (whose is its budget + margin) */
    char *run_timeout;   /* limit for one llama-bench / llama-perplexity run; NULL = the tools' */
    int64_t device_wait_s;   /* how long to wait for the device lock (default 30m) */
    int64_t resume_within_s; /* an interrupted night this recent is resumed (default 24h; 0 = never) */
    char *serve;         /* lvd serve's load shapes "N:P:G,..." after each bench; NULL: no serving step */
    int serve_arms;      /* the leading bench arms whose launch lines lvd serve measures (default 2) */
    int bisect;          /* 1: a pin decision naming a regression runs lvd bisect (default on) */
    char *bisect_budget; /* its --budget, "1h" */
} night_config;

/* Loads path (NULL = the built-in default: the bundled tiny model, the shipped
 * pin file, promotion off, evidence and log under the XDG data directory).
 * Relative paths in a file are taken relative to the file's directory.
 * 0 or -1 ("FILE:LINE: ..."). */
int night_config_load(const char *path, night_config *out, lvd_err *err);
void night_config_free(night_config *c);

#endif
