/* test_eras.c: llama-bench's outputs of every era the fixtures hold, each
 * read and its values asserted: the captures of builds b4547 (Jan 2025),
 * b5970 (Jul 2025), b9749 and b10587 (Aug 2026) in tests/fixtures/llama.cpp/
 * (`--help`, -o json, jsonl, sql, csv and md, and jsonl, json and sql with
 * stderr merged in as `> out 2>&1` makes them). Between those eras
 * flash_attn went from a bool to an int with -1 for auto, use_mmap became
 * load_mode, n_depth, n_cpu_moe, devices, no_host and fit_target appeared,
 * the SQL table test became llama_bench, and build_commit went from 7 or 8
 * characters to 9. */
#include "tests/support/testutil.h"

#include "benchio/benchout.h"
#include "engine/help.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One build's captures and what each must read as. */
typedef struct era {
    const char *dir;                 /* under tests/fixtures/llama.cpp/ */
    const char *json, *jsonl, *sql;  /* its captures of each format */
    const char *commit;              /* build_commit as printed */
    int64_t build;
    const char *model;               /* model_filename */
    int fa;                          /* flash_attn as read: a bool's false is 0, auto is -1 */
    int fitt;                        /* its --help offers -fitt */
    int reps;                        /* -r */
    const char *tests[3];            /* the json capture's tests, in order */
    double json_ts0[3];              /* the json capture's first result's samples_ts */
    double sql_avg0;                 /* the sql capture's first avg_ts */
} era;

static const era eras[] = {
    {"bench-b4547/", "bench-json", "bench-jsonl", "bench-sql", "c5d9effb4", 4547, "models/tiny-llama-q4_0.gguf",
     0, 0, 2, {"pp16", "tg4"}, {13.1913, 64.4291}, 14997.526609},
    {"bench-b5970/", "bench-json", "bench-jsonl", "bench-sql", "07a19e27a", 5970, "models/tiny-llama-q4_0.gguf",
     0, 0, 2, {"pp16", "tg4"}, {95.2436, 657.61}, 19.513244},
    {"bench-b10587/", "bench-json", "bench-jsonl", "bench-sql", "3f545becc", 10587, "models/tiny-llama-q4_0.gguf",
     -1, 1, 2, {"pp16", "tg4"}, {33428.9, 39711.5}, 442.772752},
    {"cpu-build-b9749/", "bench-json", "bench-jsonl", "bench-sql", "d32676d77", 9749, "models/small-llama-q8_0.gguf",
     -1, 1, 3, {"pp128", "tg32"}, {6925.3, 5769.32, 7195.05}, 6678.531692},
};

static const era *era_of(const char *dir)
{
    for (size_t k = 0; k < LVD_ARRAY_LEN(eras); k++)
        if (!strcmp(eras[k].dir, dir))
            return &eras[k];
    fail_msg("no era %s", dir);
    return NULL;
}

static char *read_fixture(const char *dir, const char *file, size_t *n)
{
    char *rel = lvd_xasprintf("llama.cpp/%s%s", dir, file);
    char *path = tu_fixture(rel);
    char *text = tu_read(path, n);
    free(path);
    free(rel);
    return text;
}

static void parse(const char *dir, const char *file, benchio_rows *rows)
{
    size_t n;
    char *text = read_fixture(dir, file, &n);
    lvd_err err = {0};
    if (benchio_parse_rows(text, n, BENCHIO_FMT_AUTO, file, rows, &err))
        fail_msg("%s%s: %s", dir, file, err.msg);
    free(text);
}

/* Parsing text must fail with an error that names the file and holds needle. */
static void expect_refused(const char *dir, const char *file, const char *needle)
{
    size_t n;
    char *text = read_fixture(dir, file, &n);
    benchio_rows rows;
    lvd_err err = {0};
    assert_int_equal(benchio_parse_rows(text, n, BENCHIO_FMT_AUTO, file, &rows, &err), -1);
    if (strncmp(err.msg, file, strlen(file)) || !strstr(err.msg, needle))
        fail_msg("%s%s: error '%s' lacks '%s'", dir, file, err.msg, needle);
    free(text);
}

/* What every row of an era reads as, whatever the format. */
static void check_row(const era *e, const benchio_row *r)
{
    assert_string_equal(r->build_commit, e->commit);
    assert_int_equal(r->build_number, e->build);
    assert_string_equal(r->model_filename, e->model);
    assert_string_equal(r->result.backends, "CPU");
    assert_false(benchio_result_gpu_ignored(&r->result));
    assert_int_equal(r->result.rep_fa, e->fa);
    assert_int_equal(r->result.rep_ngl, -1);
    assert_int_equal(r->result.rep_ubatch, 512);
    assert_int_equal(r->result.rep_n_cpu_moe, 0);
    assert_int_equal(r->result.n_depth, 0);
    assert_string_equal(r->result.rep_type_k, "f16");
    assert_string_equal(r->devices, "auto");
    assert_true(r->test_epoch > 1735689600); /* 2025 or later */
    assert_true(isfinite(r->avg_ts) && r->avg_ts > 0);
}

/* Samples as llama-bench computes them: t/s = 1e9 * tokens / ns, printed
 * with 6 significant digits. */
static void check_samples(const era *e, const lvd_result *r)
{
    assert_int_equal(r->n, (size_t)e->reps);
    assert_non_null(r->ns);
    for (size_t i = 0; i < r->n; i++) {
        double want = 1e9 * (r->n_prompt + r->n_gen) / (double)r->ns[i];
        if (fabs(r->ts[i] - want) > want * 1e-5)
            fail_msg("%s %s sample %zu: %g t/s, %lld ns", e->dir, r->test, i, r->ts[i], (long long)r->ns[i]);
    }
}

static void test_json_and_jsonl(void **state)
{
    (void)state;
    for (size_t k = 0; k < LVD_ARRAY_LEN(eras); k++) {
        const era *e = &eras[k];
        const char *files[] = {e->json, e->jsonl};
        for (size_t f = 0; f < 2; f++) {
            char *name = lvd_xasprintf("%s.stdout", files[f]);
            benchio_rows rows;
            parse(e->dir, name, &rows);
            assert_int_equal(rows.format, f ? BENCHIO_FMT_JSONL : BENCHIO_FMT_JSON);
            assert_int_equal(rows.lines_skipped, 0);
            for (size_t i = 0; i < rows.n; i++) {
                check_row(e, &rows.v[i]);
                check_samples(e, &rows.v[i].result);
            }
            if (!f) {
                assert_int_equal(rows.n, 2);
                for (size_t i = 0; i < rows.n; i++)
                    assert_string_equal(rows.v[i].result.test, e->tests[i]);
                for (int i = 0; i < e->reps; i++)
                    assert_true(rows.v[0].result.ts[i] == e->json_ts0[i]);
            }
            benchio_rows_free(&rows);
            free(name);
        }
    }
}

static void test_sql(void **state)
{
    (void)state;
    for (size_t k = 0; k < LVD_ARRAY_LEN(eras); k++) {
        const era *e = &eras[k];
        char *name = lvd_xasprintf("%s.stdout", e->sql);
        benchio_rows rows;
        parse(e->dir, name, &rows);
        assert_int_equal(rows.format, BENCHIO_FMT_SQL);
        assert_int_equal(rows.n, 2);
        for (size_t i = 0; i < rows.n; i++) {
            check_row(e, &rows.v[i]);
            assert_string_equal(rows.v[i].result.test, e->tests[i]);
            assert_int_equal(rows.v[i].result.n, 0);
        }
        assert_true(rows.v[0].avg_ts == e->sql_avg0);
        benchio_rows_free(&rows);
        free(name);
    }
}

/* md and csv are refused in every era, with what to run instead; so they
 * are after the log of a CUDA build (the H200 capture's stderr before them,
 * as 2>&1 puts it). */
static void test_md_and_csv(void **state)
{
    (void)state;
    static const char *const files[][2] = {
        {"bench-md.stdout", "llama-bench markdown output (-o md) is rounded"},
        {"bench-csv.stdout", "llama-bench csv output (-o csv) cannot be imported"},
    };
    size_t nlog;
    char *log = read_fixture("gpu-h200/", "bench-cuda-dense-ngl99.err", &nlog);
    for (size_t k = 0; k < LVD_ARRAY_LEN(eras); k++)
        for (size_t f = 0; f < LVD_ARRAY_LEN(files); f++) {
            expect_refused(eras[k].dir, files[f][0], files[f][1]);
            size_t n;
            char *text = read_fixture(eras[k].dir, files[f][0], &n);
            char *both = lvd_xasprintf("%s%s", log, text);
            benchio_rows rows;
            lvd_err err = {0};
            assert_int_equal(benchio_parse_rows(both, nlog + n, BENCHIO_FMT_AUTO, "out", &rows, &err), -1);
            if (!strstr(err.msg, files[f][1]))
                fail_msg("%s%s after a log: %s", eras[k].dir, files[f][0], err.msg);
            free(both);
            free(text);
        }
    free(log);
}

static void test_help(void **state)
{
    (void)state;
    for (size_t k = 0; k < LVD_ARRAY_LEN(eras); k++) {
        char *help = read_fixture(eras[k].dir, "bench-help.stdout", NULL);
        engine_help h;
        memset(&h, 0, sizeof h);
        engine_help_parse(&h, ENGINE_TOOL_BENCH, help);
        assert_int_equal(h.known[ENGINE_TOOL_BENCH], 1);
        assert_int_equal(engine_help_opt(&h, ENGINE_TOOL_BENCH, "-fitt") != NULL, eras[k].fitt);
        engine_help_free(&h);
        assert_non_null(strstr(help, "-o, --output <csv|json|jsonl|md|sql>"));
        free(help);
    }
}

/* A build's captures of `llama-bench -v -o FORMAT > out 2>&1` and what each reads as. */
typedef struct merged {
    const char *dir;
    size_t skipped;          /* jsonl: the log's lines, before and among the results */
    double tg_ts1;           /* jsonl: tg4's second sample */
    int json_line, sql_line; /* where a log cuts json's array, and follows sql's first INSERT */
} merged;

static const merged merges[] = {
    {"bench-b4547/", 144, 201.329, 155, 155},
    {"bench-b5970/", 184, 1.6529, 179, 179},
    {"bench-b10587/", 304, 4334.3, 280, 280},
    {"bench-b9749/", 302, 4408.04, 279, 279},
};

/* jsonl: llama.cpp's log before and among the results is skipped and
 * counted; every result is read. json and sql: a log inside the array, or
 * between the statements, cannot be told from the output: refused, naming
 * the line. */
static void test_merged_log(void **state)
{
    (void)state;
    for (size_t k = 0; k < LVD_ARRAY_LEN(merges); k++) {
        const merged *m = &merges[k];
        benchio_rows rows;
        parse(m->dir, "bench-jsonl-v-merged.out", &rows);
        assert_int_equal(rows.format, BENCHIO_FMT_JSONL);
        assert_int_equal(rows.n, 2);
        assert_int_equal(rows.lines_skipped, m->skipped);
        assert_string_equal(rows.first_skipped,
                            "llama_model_loader: loaded meta data with 22 key-value pairs and 21 tensors ...");
        assert_string_equal(rows.v[0].result.test, "pp16");
        assert_string_equal(rows.v[1].result.test, "tg4");
        assert_true(rows.v[1].result.ts[1] == m->tg_ts1);
        for (size_t i = 0; i < rows.n; i++) {
            assert_string_equal(rows.v[i].result.backends, "CPU");
            assert_int_equal(rows.v[i].result.n, 2);
        }
        benchio_rows_free(&rows);
        char want[64];
        snprintf(want, sizeof want, "line %d: not valid JSON near 'llama_perf_context_p'", m->json_line);
        expect_refused(m->dir, "bench-json-v-merged.out", want);
        snprintf(want, sizeof want, "line %d: near \"llama_perf_context_print\": syntax error", m->sql_line);
        expect_refused(m->dir, "bench-sql-v-merged.out", want);
    }
}

/* `llama-bench -o json > out 2>&1` on a CUDA build: ggml_cuda_init's lines
 * come before the array (here the H200 capture's stderr and b9749's json,
 * both real, put together as the shell would): skipped and counted. Another
 * value after the array is not a log: refused. */
static void test_log_before_json(void **state)
{
    (void)state;
    size_t nerr, njson;
    char *log = read_fixture("gpu-h200/", "bench-cuda-dense-ngl99.err", &nerr);
    char *json = read_fixture("cpu-build-b9749/", "bench-json.stdout", &njson);
    char *both = lvd_xasprintf("%s%s", log, json);
    benchio_rows rows;
    lvd_err err = {0};
    if (benchio_parse_rows(both, nerr + njson, BENCHIO_FMT_AUTO, "out.json", &rows, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rows.format, BENCHIO_FMT_JSON);
    assert_int_equal(rows.n, 2);
    assert_int_equal(rows.lines_skipped, 2);
    assert_string_equal(rows.first_skipped, "ggml_cuda_init: found 1 CUDA devices (Total VRAM: 143155 MiB):");
    check_row(era_of("cpu-build-b9749/"), &rows.v[0]);
    check_samples(era_of("cpu-build-b9749/"), &rows.v[1].result);
    benchio_rows_free(&rows);
    char *twice = lvd_xasprintf("%s%s%s", json, log, json);
    assert_int_equal(benchio_parse_rows(twice, 2 * njson + nerr, BENCHIO_FMT_AUTO, "out.json", &rows, &err), -1);
    if (!strstr(err.msg, "out.json: line 93: unexpected text after the JSON value"))
        fail_msg("%s", err.msg);
    free(twice);
    free(both);
    free(json);
    free(log);
}

/* `GGML_VK_VISIBLE_DEVICES=0 llama-bench -o json|jsonl > out 2>&1` on the
 * b10587 Vulkan build: ggml_vulkan's three lines before the output, and
 * nothing among it: skipped, every result read. */
static void test_vulkan_log_before(void **state)
{
    (void)state;
    static const char *const files[] = {"bench-json-vk0-merged.out", "bench-jsonl-vk0-merged.out"};
    for (size_t f = 0; f < LVD_ARRAY_LEN(files); f++) {
        benchio_rows rows;
        parse("bench-b10587-vulkan/", files[f], &rows);
        assert_int_equal(rows.format, f ? BENCHIO_FMT_JSONL : BENCHIO_FMT_JSON);
        assert_int_equal(rows.n, 2);
        assert_int_equal(rows.lines_skipped, 3);
        assert_string_equal(rows.first_skipped, "ggml_vulkan: Found 1 Vulkan devices:");
        for (size_t i = 0; i < rows.n; i++) {
            const lvd_result *r = &rows.v[i].result;
            assert_string_equal(r->test, i ? "tg4" : "pp16");
            assert_string_equal(r->backends, "Vulkan");
            assert_string_equal(rows.v[i].gpu_info, "llvmpipe (LLVM 15.0.6, 256 bits)");
            assert_int_equal(r->rep_ngl, -1);
            assert_false(benchio_result_gpu_ignored(r));
            check_samples(era_of("bench-b10587/"), r);
        }
        benchio_rows_free(&rows);
    }
}

/* Builds older than the captures, as llama-bench's json printer wrote them
 * (reproduced from its source at the first commit, Aug 2023, and at b3040,
 * May 2024; not captured): booleans instead of "backends", f16_kv instead of
 * type_k, no flash_attn, n_ubatch, n_depth or devices. */
static void test_before_the_captures(void **state)
{
    (void)state;
    static const char text[] =
        "[\n  {\n    \"build_commit\": \"097e121\", \"build_number\": 1021, \"cuda\": true, \"opencl\": false,"
        " \"metal\": false, \"gpu_blas\": true, \"blas\": true, \"cpu_info\": \"AMD Ryzen 9\","
        " \"gpu_info\": \"NVIDIA GeForce RTX 3090\", \"model_filename\": \"models/7B/ggml-model-q4_0.gguf\","
        " \"model_type\": \"llama 7B mostly Q4_0\", \"n_batch\": 512, \"n_threads\": 8, \"f16_kv\": false,"
        " \"n_gpu_layers\": 99, \"main_gpu\": 0, \"mul_mat_q\": true, \"low_vram\": false, \"tensor_split\": \"0.00\","
        " \"n_prompt\": 512, \"n_gen\": 0, \"test_time\": \"2023-08-18T10:00:00Z\", \"avg_ns\": 200000000,"
        " \"stddev_ns\": 0, \"avg_ts\": 2560.0, \"stddev_ts\": 0.0, \"samples_ns\": [ 200000000 ],"
        " \"samples_ts\": [ 2560 ]\n  },\n"
        "  {\n    \"build_commit\": \"210d9917\", \"build_number\": 3040, \"cuda\": false, \"opencl\": false,"
        " \"vulkan\": true, \"kompute\": false, \"metal\": false, \"sycl\": false, \"rpc\": false, \"gpu_blas\": false,"
        " \"blas\": false, \"n_batch\": 2048, \"n_ubatch\": 256, \"n_threads\": 8, \"type_k\": \"q8_0\","
        " \"type_v\": \"q8_0\", \"n_gpu_layers\": 99, \"flash_attn\": true, \"use_mmap\": true,"
        " \"n_prompt\": 512, \"n_gen\": 128, \"test_time\": \"2024-05-29T10:00:00Z\", \"avg_ts\": 100.0,"
        " \"samples_ns\": [ 6400000000 ], \"samples_ts\": [ 100 ]\n  },\n"
        "  {\n    \"build_commit\": \"210d9917\", \"build_number\": 3040, \"cuda\": false, \"vulkan\": false,"
        " \"blas\": true, \"n_batch\": 512, \"n_gpu_layers\": 33, \"flash_attn\": false, \"n_prompt\": 0,"
        " \"n_gen\": 128, \"test_time\": \"2024-05-29T10:00:01Z\", \"samples_ts\": [ 20 ]\n  }\n]\n";
    benchio_rows rows;
    lvd_err err = {0};
    if (benchio_parse_rows(text, sizeof text - 1, BENCHIO_FMT_AUTO, "old.json", &rows, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rows.n, 3);
    const lvd_result *a = &rows.v[0].result, *b = &rows.v[1].result, *c = &rows.v[2].result;
    assert_string_equal(a->test, "pp512");
    assert_string_equal(a->backends, "CUDA");   /* cuda came first in get_backend() */
    assert_string_equal(a->rep_type_k, "f32");  /* f16_kv false */
    assert_int_equal(a->rep_fa, 0);             /* before flash attention */
    assert_int_equal(a->rep_ubatch, 512);       /* one batch size: n_batch */
    assert_int_equal(a->n_depth, 0);
    assert_int_equal(a->rep_ngl, -1);           /* 99: the default then, not a -ngl given */
    assert_string_equal(rows.v[0].devices, "auto");
    assert_false(benchio_result_gpu_ignored(a));
    assert_string_equal(rows.v[0].build_commit, "097e121");
    assert_string_equal(b->test, "pp512+tg128");
    assert_string_equal(b->backends, "Vulkan");
    assert_string_equal(b->rep_type_v, "q8_0");
    assert_int_equal(b->rep_fa, 1);             /* a bool: true */
    assert_int_equal(b->rep_ubatch, 256);
    assert_int_equal(b->rep_ngl, -1);
    assert_string_equal(c->backends, "BLAS");   /* a CPU build with BLAS: -ngl 33 was ignored */
    assert_true(benchio_result_gpu_ignored(c));
    assert_string_equal(c->rep_type_k, "f16");
    benchio_rows_free(&rows);
}

/* build_commit: 7 or 8 characters before the SemVer releases, 9 since; a
 * user may give any of them, or all 40. */
static void test_commit_lengths(void **state)
{
    (void)state;
    assert_true(benchio_commit_matches("3f545becc", "3f545be"));
    assert_true(benchio_commit_matches("3f545be", "3f545becc"));
    assert_true(benchio_commit_matches("210d9917", "210d99173d6e5d0a8b2f4b5b6c1e8f9a0b1c2d3e"));
    assert_true(benchio_commit_matches("D32676D77", "d32676d77"));
    assert_false(benchio_commit_matches("3f545becc", "3f545bd"));
    assert_false(benchio_commit_matches("3f545becc", "3f545b")); /* too short to name a commit */
    assert_false(benchio_commit_matches("unknown", "unknownx"));
    assert_true(benchio_commit_matches("unknown", "unknown"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_and_jsonl), cmocka_unit_test(test_sql),
        cmocka_unit_test(test_md_and_csv),     cmocka_unit_test(test_help),
        cmocka_unit_test(test_merged_log),     cmocka_unit_test(test_log_before_json),
        cmocka_unit_test(test_vulkan_log_before),
        cmocka_unit_test(test_before_the_captures), cmocka_unit_test(test_commit_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
