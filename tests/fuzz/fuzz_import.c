/* fuzz_import.c: libFuzzer harness for `lvd store import`: the input is the
 * file a user imports (llama-bench -o json, jsonl or sql text, or an SQLite
 * database of -o sql rows), written to a file in a store directory made once
 * per process, then benchio_import_file records it against a registered engine.
 * Each import runs inside an outer transaction that is rolled back, so every
 * input meets the same store. It must return -1 with a message naming the file
 * (or the store), or 0 with a report that matches what the store then holds
 * (runs, results, samples of the import session). Never a crash or a leak.
 * Seeds: the bench captures in tests/fixtures/llama.cpp/ and a database made
 * from bench-sql (scripts/fuzz). */
#include "benchio/import.h"
#include "tests/fuzz/fuzzutil.h"

#include <stdio.h>
#include <unistd.h>

#define SHA "0a98828d99cb5c14b31b32e2ebb14c9ac148b673ebc69737b05949147fd32316"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96], db[96];
static store *st;

static void cleanup(void)
{
    store_close(st);
    unlink(file);
    char side[128];
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
    unlink(db);
    rmdir(dir);
}

static void init(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/lvd-fuzz-import-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/bench.out", dir);
    snprintf(db, sizeof db, "%s/store.db", dir);
    lvd_err err;
    FUZZ_CHECK(store_open(db, STORE_OPEN_CREATE, &st, &err) == 0);
    /* a local build id: llama-bench's build number is not cross-checked */
    lvd_engine e = {.name = "fuzz", .dir = "/fuzz/engine", .build = "local", .origin = "registered"};
    FUZZ_CHECK(store_engine_put(st, &e, &err) == 0);
    atexit(cleanup);
}

/* The import session's runs as the store holds them, against the report. */
static void check_recorded(const benchio_import_report *rep)
{
    store_run_filter f = {.session = "import:bench.out", .with_samples = 1};
    lvd_run *v;
    size_t n, results = 0, samples = 0, gpu_ignored = 0;
    lvd_err err;
    FUZZ_CHECK(store_run_list(st, &f, &v, &n, &err) == 0);
    FUZZ_CHECK(n == rep->runs_added && rep->runs_added + rep->runs_skipped >= 1);
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(!strcmp(v[i].artifact, SHA) && v[i].n_results >= 1 && v[i].started_at != 0);
        gpu_ignored += !strcmp(v[i].status, "gpu_ignored");
        results += v[i].n_results;
        for (size_t j = 0; j < v[i].n_results; j++)
            samples += v[i].results[j].n;
    }
    FUZZ_CHECK(results == rep->results_added && samples == rep->samples_added);
    FUZZ_CHECK(gpu_ignored == rep->gpu_ignored && rep->rows_selected <= rep->rows);
    store_run_list_free(v, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!st)
        init();
    FILE *fp = fopen(file, "wb");
    FUZZ_CHECK(fp && fwrite(data, 1, size, fp) == size && fclose(fp) == 0);
    benchio_import_opts o = {.file = file, .engine = "fuzz", .artifact = SHA, .host = "fuzz-host"};
    benchio_import_report rep;
    lvd_err err;
    FUZZ_CHECK(store_begin(st, &err) == 0);
    if (benchio_import_file(st, &o, &rep, &err) != 0) {
        FUZZ_CHECK(!strncmp(err.msg, dir, strlen(dir)));
        FUZZ_CHECK(rep.fail == BENCHIO_IMPORT_INPUT || rep.fail == BENCHIO_IMPORT_STORE);
        FUZZ_CHECK(rep.runs_added == 0 && rep.samples_added == 0);
    } else {
        check_recorded(&rep);
    }
    store_rollback(st);
    return 0;
}
