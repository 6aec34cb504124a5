/* importsel.h: which rows of a llama-bench file `lvd store import` files
 * under the engine (benchio/import.c): --select-build, --select-model and
 * --select-backend narrow a mixed file, and rows of another backend are
 * refused, never filed (a CPU and a CUDA build of one source share commit
 * and build number, so only llama-bench's "backends" and "gpu_info" tell
 * them apart). Not for parsing (benchout.h) or recording (import.c). */
#ifndef LVD_BENCHIO_IMPORTSEL_H
#define LVD_BENCHIO_IMPORTSEL_H

#include "benchio/import.h"

/* 1 when row r passes the --select-* options of o; *other_backend is set to
 * 1 when only --select-backend dropped it (counted as skipped). */
int benchio_import_row_selected(const benchio_row *r, const benchio_import_opts *o, int *other_backend);

/* Keeps the selected rows of rows (had: how many the file held); counts
 * those of another backend into *skipped. 0, or -1 (err naming o->file)
 * when none is left. */
int benchio_import_select_rows(benchio_rows *rows, const benchio_import_opts *o, size_t had, size_t *skipped,
                             lvd_err *err);

/* What a row ran on, in llama-bench's words: "CUDA on NVIDIA H200", "CPU". */
void benchio_row_backend(const benchio_row *r, char *buf, size_t len);

enum { BENCHIO_MAX_SEEN = 8 };

/* The backends a file's selected rows ran on, counted as they are read (a
 * database is not held whole): name (benchio_row_backend) and count of each. */
typedef struct benchio_seen_backends {
    char name[BENCHIO_MAX_SEEN][200];
    size_t count[BENCHIO_MAX_SEEN];
    size_t n, others; /* others: rows past BENCHIO_MAX_SEEN distinct backends */
    size_t rows;      /* rows counted */
    char first[64];   /* the first row's "backends" */
} benchio_seen_backends;

/* Counts row r into s. */
void benchio_seen_add(benchio_seen_backends *s, const benchio_row *r);

/* The backend rule: every row counted ran on one backend (benchio_row_backend),
 * and on the engine's, engine_backends being what llama-bench reported for
 * the engine's newest ok run in the store ("" or NULL: nothing recorded yet).
 * 0, or -1 with one line naming file, the row count and the backends seen. */
int benchio_seen_check(const benchio_seen_backends *s, const char *file, const char *engine,
                     const char *engine_backends, lvd_err *err);

#endif
