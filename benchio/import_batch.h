/* import_batch.h: several llama-bench files imported in one invocation
 * (`lvd store import F1 F2 ...`): one store open, one transaction per file. */
#ifndef LVD_BENCHIO_IMPORT_BATCH_H
#define LVD_BENCHIO_IMPORT_BATCH_H

#include "benchio/import.h"

/* The files and their options: base holds the options given once (its file
 * is ignored); --engine, --model and --artifact given once per file (n_X ==
 * n_files) name each file's, in order, else base's serve every file. */
typedef struct benchio_import_batch {
    const benchio_import_opts *base;
    const char *const *files;
    int n_files;
    const char *const *engines, *const *models, *const *artifacts;
    int n_engines, n_models, n_artifacts;
    int json;                /* print JSON: one object, an array for several files */
} benchio_import_batch;

/* Imports each file in turn; the first that fails stops the rest (the files
 * before it stay imported). Prints the reports on stdout and errors as tool;
 * returns the tool's exit code: 0, 2 (usage), 3 (a bad file), 4 (store). */
int benchio_import_batch_run(store *s, const benchio_import_batch *b, const char *tool);

#endif
