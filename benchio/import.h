/* import.h: `lvd store import`: llama-bench output files (json, jsonl, sql)
 * recorded as runs keyed like any other (artifact sha256 + engine + host), so
 * results measured before llama-verdict are not lost. Not for parsing the
 * formats (benchio/benchout.h) or running anything. */
#ifndef LVD_BENCHIO_IMPORT_H
#define LVD_BENCHIO_IMPORT_H

#include "benchio/benchout.h"
#include "store/store.h"

typedef struct benchio_import_opts {
    const char *file;        /* the llama-bench output */
    benchio_format format;     /* BENCHIO_FMT_AUTO: detect */
    const char *engine;      /* an engine in the store; with engine_dir: the name to give it */
    const char *engine_dir;  /* register this directory (origin "imported") ... */
    const char *build;       /* ... with this build id (required with engine_dir) */
    const char *model;       /* the model file: identified (sha256, shape) and recorded */
    const char *artifact;    /* or its sha256 when the file is elsewhere (stub, shape unknown) */
    const char *host;        /* where it ran; NULL = this machine */
    const char *env;         /* environment the runs had ("K=V ..."), NULL = none */
    const char *session;     /* the session the runs join; NULL = "import:BASENAME" */
    const char *select_build;/* keep only rows of this build: commit (any length from 7: matched
                                as benchio_commit_matches does), "bNNNN" or NNNN */
    const char *select_model;/* keep only rows of this model_filename (path or basename) */
    const char *select_backend; /* keep only rows whose llama-bench "backends" is this ("CUDA",
                                   case-insensitive); the others are counted, never filed */
} benchio_import_opts;

/* Why an import failed, for the tool's exit code. */
typedef enum benchio_import_fail {
    BENCHIO_IMPORT_OK = 0,
    BENCHIO_IMPORT_USAGE,      /* options missing or contradicting the store */
    BENCHIO_IMPORT_INPUT,      /* the file (or the model) is unreadable, garbled, or inconsistent */
    BENCHIO_IMPORT_STORE,      /* the store failed */
} benchio_import_fail;

typedef struct benchio_import_report {
    benchio_format format;
    int sqlite_db;           /* the file was an SQLite database of -o sql rows */
    size_t rows;             /* results in the file */
    size_t lines_skipped;    /* its lines that were not llama-bench output (a log, 2>&1) */
    char first_skipped[80];  /* the first of them, cut short; "" when none */
    size_t rows_selected;    /* of which --select-build / --select-model / --select-backend kept */
    size_t rows_other_backend; /* of which --select-backend skipped (another backend's) */
    size_t runs_added;       /* one per consecutive parameter set */
    size_t runs_skipped;     /* already in the store (same engine, artifact, arm, test_time, tests) */
    char skipped_session[256]; /* the session of the first skipped run when it is not the
                                one asked for (it stays there; truncated); "" otherwise */
    size_t results_added, samples_added;
    size_t warmup_flagged;   /* samples of the added runs flagged as warm-up */
    size_t gpu_ignored;      /* runs recorded with status gpu_ignored */
    int64_t engine_id;
    int engine_registered;   /* 1 when engine_dir was registered by this import */
    char artifact[LVD_SHA256_HEX_LEN + 1];
    benchio_import_fail fail;
} benchio_import_report;

/* Imports o->file (llama-bench -o json, jsonl or sql output, or the SQLite
 * database compare-llama-bench.py reads) into s in one transaction: either every new run lands or
 * none does. Results are grouped into runs by consecutive reported parameter
 * set (a repeated test starts a new run); each run gets status "ok" (or
 * "gpu_ignored" when llama-bench reported CPU backends for -ngl > 0), source
 * "import", session o->session (default "import:BASENAME": several imports
 * that name one session form one session, as one lvd bench does),
 * started_at = its earliest test_time, params and arm key from what
 * llama-bench reported (benchio/arm.h), and its warm-up samples flagged per
 * result exactly as the bench runner flags them (benchio_result_flag_warmup).
 * A file holding several models or builds, or a build other than the
 * engine's, is refused unless select_build / select_model narrow it to one;
 * so is one whose rows ran on more than one backend (llama-bench's
 * "backends" and "gpu_info") or on another backend than the engine's newest
 * ok run in the store reported, unless select_backend keeps that one
 * (benchio/importsel.h): a CPU and a CUDA build of one source share commit and
 * build number, and their rows are never filed under one engine.
 * Importing the same results again adds nothing, whatever the session (a
 * run stays in the session it was first imported into; rep says which).
 * 0 or -1 with err and rep->fail set. */
int benchio_import_file(store *s, const benchio_import_opts *o, benchio_import_report *rep, lvd_err *err);

#endif
