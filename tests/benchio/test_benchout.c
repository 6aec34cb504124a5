/* test_benchout.c: the llama-bench output parser and arm keys against the real
 * captures in tests/fixtures/llama.cpp (every format, values checked against
 * the numbers printed there) and against truncated and garbled variants. */
#include "tests/support/testutil.h"

#include "benchio/arm.h"
#include "benchio/benchout.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR "llama.cpp/cpu-build-b9749/"
#define GPU_DIR "llama.cpp/gpu-h200/"

/* cmocka 1.1.5 has no assert_double_equal. */
#define assert_double_equal(a, b, eps) assert_near((a), (b), (eps), __LINE__)
static void assert_near(double a, double b, double eps, int line)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("line %d: %.17g != %.17g (eps %g)", line, a, b, eps);
}

static char *fixture(const char *rel, size_t *n)
{
    char *path = tu_fixture(rel);
    char *text = tu_read(path, n);
    free(path);
    return text;
}

static void parse_fixture(const char *rel, benchio_rows *rows)
{
    size_t n;
    char *text = fixture(rel, &n);
    lvd_err err = {0};
    if (benchio_parse_rows(text, n, BENCHIO_FMT_AUTO, rel, rows, &err))
        fail_msg("%s", err.msg);
    free(text);
}

/* Parses text and expects an error whose message contains each needle. */
static void expect_error(const char *text, size_t len, benchio_format fmt, const char *needle)
{
    benchio_rows rows;
    lvd_err err = {0};
    assert_int_equal(benchio_parse_rows(text, len, fmt, "input.txt", &rows, &err), -1);
    assert_null(rows.v);
    if (!strstr(err.msg, "input.txt") || !strstr(err.msg, needle))
        fail_msg("error '%s' lacks 'input.txt' or '%s'", err.msg, needle);
}

static void check_samples(const lvd_result *r, size_t n, const double *ts, const int64_t *ns)
{
    assert_int_equal(r->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_double_equal(r->ts[i], ts[i], 1e-9);
        if (ns)
            assert_int_equal(r->ns[i], ns[i]);
        assert_int_equal(r->warmup[i], 0);
    }
}

static double reported_double(const lvd_result *r, const char *key)
{
    cJSON *o = cJSON_Parse(r->reported_json);
    assert_non_null(o);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    double d = v->valuedouble;
    cJSON_Delete(o);
    return d;
}

static void test_json(void **state)
{
    (void)state;
    benchio_rows rows;
    parse_fixture(CPU_DIR "bench-json.stdout", &rows);
    assert_int_equal(rows.format, BENCHIO_FMT_JSON);
    assert_int_equal(rows.n, 2);
    const benchio_row *pp = &rows.v[0], *tg = &rows.v[1];
    assert_string_equal(pp->result.test, "pp128");
    /* the reported object keeps llama-bench's fields but not the sample arrays,
     * which are the samples themselves (stored once) */
    assert_true(reported_double(&pp->result, "avg_ts") > 0);
    assert_null(strstr(pp->result.reported_json, "samples_ns"));
    assert_null(strstr(pp->result.reported_json, "samples_ts"));
    assert_int_equal(pp->result.n_prompt, 128);
    assert_int_equal(pp->result.n_gen, 0);
    assert_string_equal(pp->result.backends, "CPU");
    assert_int_equal(pp->result.rep_ngl, -1);
    assert_int_equal(pp->result.rep_fa, -1);
    assert_int_equal(pp->result.rep_ubatch, 512);
    assert_int_equal(pp->result.rep_threads, 2);
    assert_int_equal(pp->result.rep_n_cpu_moe, 0);
    assert_string_equal(pp->result.rep_type_k, "f16");
    assert_string_equal(pp->result.rep_type_v, "f16");
    assert_string_equal(pp->build_commit, "d32676d77");
    assert_int_equal(pp->build_number, 9749);
    assert_string_equal(pp->model_filename, "models/small-llama-q8_0.gguf");
    assert_int_equal(pp->model_size, 20550656);
    assert_string_equal(pp->devices, "auto");
    assert_string_equal(pp->test_time, "2026-11-30T14:38:55Z");
    assert_int_equal(pp->test_epoch, 1796049535); /* date -u -d 2026-11-30T14:38:55Z +%s */
    assert_double_equal(pp->avg_ts, 6629.892480, 1e-9);
    static const double pp_ts[] = {6925.3, 5769.32, 7195.05};
    static const int64_t pp_ns[] = {18482944, 22186319, 17790002};
    check_samples(&pp->result, 3, pp_ts, pp_ns);
    assert_string_equal(tg->result.test, "tg32");
    static const double tg_ts[] = {438.808, 331.262, 650.149};
    static const int64_t tg_ns[] = {72924857, 96600284, 49219521};
    check_samples(&tg->result, 3, tg_ts, tg_ns);
    /* The whole object is kept. */
    assert_double_equal(reported_double(&tg->result, "stddev_ts"), 162.234222, 1e-9);
    assert_double_equal(reported_double(&tg->result, "model_n_params"), 19335424, 0);
    benchio_rows_free(&rows);
}

static void test_jsonl(void **state)
{
    (void)state;
    benchio_rows rows;
    parse_fixture(CPU_DIR "bench-jsonl.stdout", &rows);
    assert_int_equal(rows.format, BENCHIO_FMT_JSONL);
    assert_int_equal(rows.n, 3);
    assert_string_equal(rows.v[0].result.test, "pp128");
    assert_string_equal(rows.v[1].result.test, "pp256");
    assert_string_equal(rows.v[2].result.test, "tg32");
    static const double ts[] = {2608.9, 3574.72, 6740.21};
    static const int64_t ns[] = {98125555, 71613975, 37981040};
    check_samples(&rows.v[1].result, 3, ts, ns);
    assert_string_equal(rows.v[2].test_time, "2026-11-30T14:38:56Z");
    benchio_rows_free(&rows);
}

static void test_sql(void **state)
{
    (void)state;
    benchio_rows rows;
    parse_fixture(CPU_DIR "bench-sql.stdout", &rows);
    assert_int_equal(rows.format, BENCHIO_FMT_SQL);
    assert_int_equal(rows.n, 2);
    const benchio_row *pp = &rows.v[0];
    assert_string_equal(pp->result.test, "pp128");
    assert_int_equal(pp->result.n, 0); /* sql has no samples arrays */
    assert_null(pp->result.ts);
    assert_string_equal(pp->build_commit, "d32676d77");
    assert_int_equal(pp->build_number, 9749); /* printed as '9749', typed by CREATE TABLE */
    assert_int_equal(pp->result.rep_ngl, -1);
    assert_int_equal(pp->result.rep_ubatch, 512);
    assert_int_equal(pp->result.rep_threads, 2);
    assert_string_equal(pp->result.rep_type_k, "f16");
    assert_double_equal(pp->avg_ts, 6678.531692, 1e-9);
    assert_double_equal(pp->stddev_ts, 1791.827580, 1e-9);
    assert_double_equal(reported_double(&pp->result, "avg_ts"), 6678.531692, 1e-9);
    assert_double_equal(reported_double(&pp->result, "stddev_ts"), 1791.827580, 1e-9);
    assert_double_equal(reported_double(&pp->result, "avg_ns"), 20318026, 0);
    assert_string_equal(rows.v[1].result.test, "tg32");
    assert_double_equal(rows.v[1].avg_ts, 518.617092, 1e-9);
    assert_string_equal(rows.v[1].test_time, "2026-11-30T14:39:00Z");
    benchio_rows_free(&rows);
}

static void test_cpu_only_ngl99(void **state)
{
    (void)state;
    benchio_rows rows;
    parse_fixture(CPU_DIR "bench-ngl99-cpu-only.stdout", &rows);
    assert_int_equal(rows.n, 2);
    assert_int_equal(rows.v[0].result.rep_ngl, 99);
    assert_string_equal(rows.v[0].result.backends, "CPU");
    assert_true(benchio_result_gpu_ignored(&rows.v[0].result));
    static const double ts[] = {74.1314, 778.174, 781.104};
    check_samples(&rows.v[1].result, 3, ts, NULL);
    benchio_rows_free(&rows);

    /* -ngl not passed on a CPU build is not "ignored". */
    parse_fixture(CPU_DIR "bench-json.stdout", &rows);
    assert_false(benchio_result_gpu_ignored(&rows.v[0].result));
    benchio_rows_free(&rows);
}

static void test_fitt_and_moe(void **state)
{
    (void)state;
    benchio_rows rows;
    parse_fixture(CPU_DIR "bench-fitt.stdout", &rows);
    assert_int_equal(rows.n, 2);
    assert_double_equal(reported_double(&rows.v[0].result, "fit_target"), 1024, 0);
    static const double ts[] = {11.7081, 582.098, 210.292};
    check_samples(&rows.v[1].result, 3, ts, NULL);
    benchio_rows_free(&rows);

    parse_fixture(CPU_DIR "bench-moe-ncmoe.stdout", &rows);
    assert_int_equal(rows.n, 4);
    static const int ncmoe[] = {0, 0, 2, 2};
    static const char *const test[] = {"pp64", "tg16", "pp64", "tg16"};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(rows.v[i].result.rep_n_cpu_moe, ncmoe[i]);
        assert_string_equal(rows.v[i].result.test, test[i]);
    }
    assert_string_equal(rows.v[3].model_filename, "models/tiny-moe-q4_0.gguf");
    static const double ts3[] = {2074.07, 2009.02, 2064.03};
    check_samples(&rows.v[3].result, 3, ts3, NULL);
    benchio_rows_free(&rows);
}

static void test_gpu_captures(void **state)
{
    (void)state;
    static const char *const files[] = {
        "bench-cpu-dense.jsonl", "bench-cpu-moe.jsonl", "bench-cuda-dense-fit.jsonl",
        "bench-cuda-dense-ngl8.jsonl", "bench-cuda-dense-ngl99.jsonl", "bench-cuda-moe-ncmoe.jsonl",
        "bench-vulkan-dense-ngl99-hostmem.jsonl", "bench-vulkan-dense-ngl99.jsonl"};
    static const size_t rows_in[] = {2, 2, 2, 2, 4, 6, 2, 4};
    for (size_t i = 0; i < LVD_ARRAY_LEN(files); i++) {
        char rel[256];
        snprintf(rel, sizeof rel, GPU_DIR "%s", files[i]);
        benchio_rows rows;
        parse_fixture(rel, &rows);
        assert_int_equal(rows.n, rows_in[i]);
        for (size_t j = 0; j < rows.n; j++) {
            assert_true(rows.v[j].result.n >= 3);
            assert_false(benchio_result_gpu_ignored(&rows.v[j].result));
        }
        benchio_rows_free(&rows);
    }

    benchio_rows rows;
    parse_fixture(GPU_DIR "bench-cuda-dense-ngl99.jsonl", &rows);
    const lvd_result *pp = &rows.v[0].result;
    assert_string_equal(pp->test, "pp512");
    assert_string_equal(pp->backends, "CUDA");
    assert_int_equal(pp->rep_ngl, 99);
    assert_int_equal(pp->rep_fa, 0);
    assert_int_equal(rows.v[2].result.rep_fa, 1);
    assert_string_equal(rows.v[0].build_commit, "unknown");
    assert_int_equal(rows.v[0].build_number, 0);
    static const double ts[] = {34431.6, 59271.2, 59875.5, 59863.6, 60409.3};
    static const int64_t ns[] = {14870068, 8638261, 8551074, 8552772, 8475512};
    check_samples(pp, 5, ts, ns);

    lvd_params p;
    benchio_params_from_result(pp, &p);
    char key[512];
    assert_int_equal(benchio_arm_key(&p, key, sizeof key), 0);
    assert_string_equal(key, "dev=- ngl=99 fa=0 ub=512 ctk=f16 ctv=f16 ncmoe=- t=16 env=");
    benchio_params_from_result(&rows.v[3].result, &p);
    assert_int_equal(benchio_arm_key(&p, key, sizeof key), 0);
    assert_string_equal(key, "dev=- ngl=99 fa=1 ub=512 ctk=f16 ctv=f16 ncmoe=- t=16 env=");
    benchio_rows_free(&rows);

    parse_fixture(GPU_DIR "bench-cuda-moe-ncmoe.jsonl", &rows);
    benchio_params_from_result(&rows.v[5].result, &p);
    assert_int_equal(p.n_cpu_moe, 8);
    benchio_rows_free(&rows);
}

static void test_parse_output_into_run(void **state)
{
    (void)state;
    size_t n;
    char *text = fixture(CPU_DIR "bench-jsonl.stdout", &n);
    lvd_run run = {0};
    lvd_err err = {0};
    assert_int_equal(benchio_parse_output(text, n, "bench-jsonl", &run, &err), 0);
    assert_int_equal(run.n_results, 3);
    assert_string_equal(run.build_commit, "d32676d77");
    assert_int_equal(run.build_number, 9749);
    assert_string_equal(run.results[2].test, "tg32");
    assert_double_equal(run.results[2].ts[1], 784.736, 1e-9);
    lvd_run_free(&run);

    /* Two builds in what claims to be one invocation. */
    char *mixed = lvd_xstrdup(text);
    char *second = strchr(mixed, '\n') + 1;
    char *num = strstr(second, "9749");
    memcpy(num, "9750", 4);
    memset(&run, 0, sizeof run);
    assert_int_equal(benchio_parse_output(mixed, n, "mixed.jsonl", &run, &err), -1);
    assert_non_null(strstr(err.msg, "more than one build"));
    assert_int_equal(run.n_results, 0);
    free(mixed);
    free(text);
}

static void test_truncated_fixtures(void **state)
{
    (void)state;
    static const char *const files[] = {"bench-json.stdout", "bench-jsonl.stdout", "bench-sql.stdout"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(files); i++) {
        char rel[256];
        snprintf(rel, sizeof rel, CPU_DIR "%s", files[i]);
        size_t n;
        char *text = fixture(rel, &n);
        /* Cut inside the last result at several places: always an error, never a crash. */
        for (size_t cut = n - 3; cut > n - 400; cut -= 37) {
            benchio_rows rows;
            lvd_err err = {0};
            int rc = benchio_parse_rows(text, cut, BENCHIO_FMT_AUTO, "input.txt", &rows, &err);
            if (rc == 0)
                fail_msg("%s cut at %zu of %zu parsed", files[i], cut, n);
            assert_non_null(strstr(err.msg, "input.txt"));
        }
        free(text);
    }
    const char json_cut[] = "[\n  {\"n_prompt\": 128, \"n_gen\": 0, \"samples_ts\": [ 1.5, ";
    expect_error(json_cut, sizeof json_cut - 1, BENCHIO_FMT_AUTO, "truncated");
    const char sql_cut[] = "CREATE TABLE llama_bench (n_prompt, n_gen, avg_ts);\n"
                           "INSERT INTO llama_bench (n_prompt, n_gen, avg_ts) VALUES ('128', '0', '12";
    expect_error(sql_cut, sizeof sql_cut - 1, BENCHIO_FMT_AUTO, "line 2: the output ends inside a statement (truncated?)");
    const char sql_nosemi[] = "CREATE TABLE llama_bench (n_prompt, n_gen, avg_ts);\n"
                              "INSERT INTO llama_bench (n_prompt, n_gen, avg_ts) VALUES ('128', '0', '12.5')";
    expect_error(sql_nosemi, sizeof sql_nosemi - 1, BENCHIO_FMT_AUTO, "line 2: the output ends inside a statement");
    const char sql_open[] = "BEGIN TRANSACTION;\nCREATE TABLE llama_bench (n_prompt, n_gen, avg_ts);\n"
                            "INSERT INTO llama_bench (n_prompt, n_gen, avg_ts) VALUES ('128', '0', '12.5');\n";
    expect_error(sql_open, sizeof sql_open - 1, BENCHIO_FMT_AUTO, "ends inside a transaction, without its COMMIT");
}

static void test_garbage(void **state)
{
    (void)state;
    expect_error("", 0, BENCHIO_FMT_AUTO, "empty");
    expect_error("  \n\t\n", 5, BENCHIO_FMT_AUTO, "empty");
    expect_error("hello world\n", 12, BENCHIO_FMT_AUTO, "not llama-bench output");
    expect_error("[]", 2, BENCHIO_FMT_AUTO, "no results");
    expect_error("[1, 2]", 6, BENCHIO_FMT_AUTO, "result 1: not a JSON object");
    expect_error("{\"a\": 1}\n", 9, BENCHIO_FMT_AUTO, "line 1: no valid n_prompt");
    expect_error("{\"n_prompt\": 1, \"n_gen\": 0}\n", 28, BENCHIO_FMT_AUTO, "neither samples_ts nor avg_ts");
    const char twice[] = "{\"n_prompt\": 1, \"n_gen\": 0, \"avg_ts\": 2}\n{\"n_prompt\": 1, \"n_gen\": 0, \"avg_ts\": 2} x\n";
    expect_error(twice, sizeof twice - 1, BENCHIO_FMT_AUTO, "line 2: unexpected text");
    const char mismatch[] = "{\"n_prompt\": 1, \"n_gen\": 0, \"samples_ns\": [1, 2], \"samples_ts\": [1.0]}";
    expect_error(mismatch, sizeof mismatch - 1, BENCHIO_FMT_AUTO, "1 samples_ts but 2 samples_ns");
    const char badts[] = "{\"n_prompt\": 1, \"n_gen\": 0, \"samples_ts\": [1.0, \"x\"]}";
    expect_error(badts, sizeof badts - 1, BENCHIO_FMT_AUTO, "samples_ts[1]");
    const char badngl[] = "{\"n_prompt\": 1, \"n_gen\": 0, \"avg_ts\": 2, \"n_gpu_layers\": \"many\"}";
    expect_error(badngl, sizeof badngl - 1, BENCHIO_FMT_AUTO, "\"n_gpu_layers\" is not an integer");
    const char badjson[] = "[\n{\"n_prompt\": 1,, }\n]";
    expect_error(badjson, sizeof badjson - 1, BENCHIO_FMT_AUTO, "line 2: not valid JSON");
    /* Input is not NUL-terminated: error snippets stay inside it (found by fuzz_benchout). */
    char *exact = lvd_xmalloc(8);
    memcpy(exact, "[1, 2, x", 8);
    expect_error(exact, 8, BENCHIO_FMT_AUTO, "not valid JSON near 'x'");
    memcpy(exact, "[1,\n  @2", 8);
    expect_error(exact, 8, BENCHIO_FMT_AUTO, "line 2: not valid JSON near '@2'");
    free(exact);
    const char notarray[] = "{\"n_prompt\": 1, \"n_gen\": 0, \"avg_ts\": 2}";
    expect_error(notarray, sizeof notarray - 1, BENCHIO_FMT_JSON, "one array");
    const char drop[] = "DROP TABLE llama_bench;";
    expect_error(drop, sizeof drop - 1, BENCHIO_FMT_SQL, "line 1: no such table: llama_bench");
    const char count[] = "CREATE TABLE t (n_prompt, n_gen);\nINSERT INTO t (n_prompt, n_gen) VALUES ('1');";
    expect_error(count, sizeof count - 1, BENCHIO_FMT_AUTO, "line 2: 1 values for 2 columns");
    const char nocols[] = "INSERT INTO llama_bench VALUES ('1', '2');";
    expect_error(nocols, sizeof nocols - 1, BENCHIO_FMT_AUTO, "without llama-bench's CREATE TABLE");
    const char other[] = "CREATE TABLE t (n_prompt, n_gen, avg_ts);\nINSERT INTO t VALUES (1, 0, 2.5);";
    expect_error(other, sizeof other - 1, BENCHIO_FMT_AUTO, "no results in this llama-bench sql output");
    const char bin[] = "\x01\x02\x03\xff";
    expect_error(bin, sizeof bin - 1, BENCHIO_FMT_AUTO, "not llama-bench output");
    expect_error("SQLite format 3\0\x10\x00", 19, BENCHIO_FMT_AUTO, "SQLite database");

    size_t n;
    char *md = fixture(CPU_DIR "bench-md.stdout", &n);
    expect_error(md, n, BENCHIO_FMT_AUTO, "markdown");
    free(md);
    char *csv = fixture(CPU_DIR "bench-csv.stdout", &n);
    expect_error(csv, n, BENCHIO_FMT_AUTO, "csv");
    free(csv);
}

static void test_sql_variants(void **state)
{
    (void)state;
    /* An untyped CREATE TABLE, BEGIN/COMMIT, comments, '' escapes, NULL, two tuples. */
    const char text[] =
        "-- kept by hand\nBEGIN TRANSACTION;\n"
        "CREATE TABLE llama_bench (model_type, n_prompt, n_gen, n_depth, avg_ts, type_k, flash_attn);\n"
        "INSERT INTO llama_bench (model_type, n_prompt, n_gen, n_depth, avg_ts, type_k, flash_attn) VALUES\n"
        "  ('it''s ?B', '512', '0', '1024', '99.5', NULL, '1'),\n"
        "  ('x', 0, 128, 0, 12.25, 'q8_0', 0);\nCOMMIT;\n";
    benchio_rows rows;
    lvd_err err = {0};
    if (benchio_parse_rows(text, sizeof text - 1, BENCHIO_FMT_AUTO, "hand.sql", &rows, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rows.n, 2);
    assert_string_equal(rows.v[0].model_type, "it's ?B");
    assert_string_equal(rows.v[0].result.test, "pp512@d1024");
    assert_double_equal(rows.v[0].avg_ts, 99.5, 0);
    assert_string_equal(rows.v[0].result.rep_type_k, "f16"); /* NULL: absent, the era's f16 */
    assert_int_equal(rows.v[0].result.rep_fa, 1);
    assert_string_equal(rows.v[1].result.test, "tg128");
    assert_string_equal(rows.v[1].result.rep_type_k, "q8_0");
    assert_double_equal(rows.v[1].avg_ts, 12.25, 0);
    benchio_rows_free(&rows);
}

/* ik_llama.cpp reports its knobs in every row (-fmoe 0,1 -rtr 0,1 ran the
 * first value of each: its llama-bench takes one): an import keeps them. */
static void test_ik_knobs(void **state)
{
    (void)state;
    benchio_rows rows;
    parse_fixture("llama.cpp/cpu-build-ik4840/bench-moe-fmoe-rtr.stdout", &rows);
    assert_int_equal(rows.n, 2);
    lvd_params p;
    benchio_params_from_result(&rows.v[0].result, &p);
    assert_int_equal(p.fused_moe, 0);
    assert_int_equal(p.repack, 0);
    assert_int_equal(p.ngl, -1); /* 999, its default */
    char key[320];
    assert_int_equal(benchio_arm_key(&p, key, sizeof key), 0);
    assert_string_equal(key, "dev=- ngl=- fa=1 ub=512 ctk=f16 ctv=f16 ncmoe=- t=2 fmoe=0 rtr=0 env=");
    benchio_rows_free(&rows);
    /* mainline reports neither: not passed */
    parse_fixture(CPU_DIR "bench-json.stdout", &rows);
    benchio_params_from_result(&rows.v[0].result, &p);
    assert_int_equal(p.fused_moe, -1);
    assert_int_equal(p.repack, -1);
    benchio_rows_free(&rows);
}

static void test_names_and_keys(void **state)
{
    (void)state;
    char buf[48];
    benchio_test_name(512, 0, 0, buf, sizeof buf);
    assert_string_equal(buf, "pp512");
    benchio_test_name(0, 128, 0, buf, sizeof buf);
    assert_string_equal(buf, "tg128");
    benchio_test_name(512, 128, 0, buf, sizeof buf);
    assert_string_equal(buf, "pp512+tg128");
    benchio_test_name(0, 128, 4096, buf, sizeof buf);
    assert_string_equal(buf, "tg128@d4096");

    lvd_params p;
    lvd_params_init(&p);
    char key[256];
    assert_int_equal(benchio_arm_key(&p, key, sizeof key), 0);
    assert_string_equal(key, "dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- env=");
    strcpy(p.device, "CUDA0");
    p.ngl = 99;
    p.fa = 1;
    p.ubatch = 512;
    strcpy(p.type_k, "f16");
    strcpy(p.type_v, "f16");
    p.n_cpu_moe = 4;
    p.threads = 16;
    strcpy(p.env, "GGML_B=2 GGML_A=1");
    assert_int_equal(benchio_arm_key(&p, key, sizeof key), 0);
    assert_string_equal(key, "dev=CUDA0 ngl=99 fa=1 ub=512 ctk=f16 ctv=f16 ncmoe=4 t=16 env=GGML_A=1 GGML_B=2");
    strcpy(p.env, "GGML_A=1 GGML_B=2");
    char key2[256];
    assert_int_equal(benchio_arm_key(&p, key2, sizeof key2), 0);
    assert_string_equal(key, key2);
    p.fa = 0;
    assert_int_equal(benchio_arm_key(&p, key2, sizeof key2), 0);
    assert_string_not_equal(key, key2);
    assert_int_equal(benchio_arm_key(&p, key, 10), -1);
    assert_string_equal(key, "");

    benchio_format f;
    assert_int_equal(benchio_format_parse("jsonl", &f), 0);
    assert_int_equal(f, BENCHIO_FMT_JSONL);
    assert_int_equal(benchio_format_parse("md", &f), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_jsonl),
        cmocka_unit_test(test_sql),
        cmocka_unit_test(test_cpu_only_ngl99),
        cmocka_unit_test(test_fitt_and_moe),
        cmocka_unit_test(test_gpu_captures),
        cmocka_unit_test(test_parse_output_into_run),
        cmocka_unit_test(test_truncated_fixtures),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_sql_variants),
        cmocka_unit_test(test_names_and_keys),
        cmocka_unit_test(test_ik_knobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
