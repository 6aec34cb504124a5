/* test_benchsql.c: llama-bench's -o sql text executed by SQLite into an
 * in-memory database (store/benchsql.c): the rows of both table names come
 * back typed by the CREATE TABLE, and what llama-bench never prints (ATTACH,
 * PRAGMA, functions, triggers, views, indexes, reads of a table, DELETE,
 * UPDATE, DROP, temp tables) and what would cost without bound (long values,
 * many columns, deep expressions) are refused in one line naming the file
 * and the line, touching no file. */
#include "tests/support/testutil.h"

#include "store/benchdb.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TABLE "CREATE TABLE IF NOT EXISTS llama_bench (\n  model_type TEXT,\n  n_prompt INTEGER,\n  avg_ts REAL\n);\n"

/* The rows handed back, printed one per line. */
static int collect(const cJSON *row, size_t i, void *ctx)
{
    lvd_sb *sb = ctx;
    char *s = cJSON_PrintUnformatted(row);
    lvd_sb_addf(sb, "%zu %s\n", i, s);
    free(s);
    return 0;
}

/* Executes text; 0 with the rows in *out, or -1 with the error in err. */
static int run(const char *text, lvd_sb *out, lvd_err *err)
{
    size_t tables;
    memset(out, 0, sizeof *out);
    return store_llama_bench_sql_each(text, strlen(text), "in.sql", 1, &tables, collect, out, err);
}

static void expect_refused(const char *text, const char *needle)
{
    lvd_sb rows;
    lvd_err err = {0};
    if (run(text, &rows, &err) != -1)
        fail_msg("accepted: %s", text);
    lvd_sb_free(&rows);
    if (strncmp(err.msg, "in.sql: line ", 13) || !strstr(err.msg, needle) || strchr(err.msg, '\n'))
        fail_msg("error '%s' lacks 'in.sql: line' or '%s'", err.msg, needle);
}

static void test_rows_typed(void **state)
{
    (void)state;
    lvd_sb rows;
    lvd_err err = {0};
    const char text[] = TABLE "BEGIN;\n"
                              "INSERT INTO llama_bench (model_type, n_prompt, avg_ts) VALUES ('it''s', '512', '1.5');\n"
                              "COMMIT;\n-- a comment\n";
    assert_int_equal(run(text, &rows, &err), 0);
    assert_string_equal(lvd_sb_str(&rows), "0 {\"model_type\":\"it's\",\"n_prompt\":512,\"avg_ts\":1.5}\n");
    lvd_sb_free(&rows);

    /* Builds before b6066 name the table test; a text with both is read oldest first. */
    const char both[] = "CREATE TABLE llama_bench (n_prompt INTEGER);\nINSERT INTO llama_bench VALUES ('2');\n"
                        "CREATE TABLE test (n_prompt INTEGER);\nINSERT INTO test VALUES ('1');\n";
    assert_int_equal(run(both, &rows, &err), 0);
    assert_string_equal(lvd_sb_str(&rows), "0 {\"n_prompt\":1}\n1 {\"n_prompt\":2}\n");
    lvd_sb_free(&rows);

    size_t tables = 9;
    assert_int_equal(store_llama_bench_sql_each("-- nothing\n", 11, "in.sql", 1, &tables, collect, &rows, &err), 0);
    assert_int_equal(tables, 0);
}

static void test_refused(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {TABLE "PRAGMA writable_schema = 1;\n", "line 6: PRAGMA writable_schema is not allowed"},
        {TABLE "INSERT INTO llama_bench VALUES ('x', abs(-1), 1.0);\n", "the function abs is not allowed"},
        {TABLE "INSERT INTO llama_bench VALUES ('x', 1, load_extension('x'));\n", "the function load_extension"},
        {TABLE "CREATE TRIGGER t AFTER INSERT ON llama_bench BEGIN DELETE FROM llama_bench; END;\n",
         "CREATE TRIGGER t is not allowed"},
        {TABLE "CREATE VIEW v AS SELECT 1;\n", "CREATE VIEW v is not allowed"},
        {TABLE "CREATE INDEX i ON llama_bench (n_prompt);\n", "CREATE INDEX i is not allowed"},
        {TABLE "CREATE TEMP TABLE x (a);\n", "CREATE TEMP TABLE x is not allowed"},
        {TABLE "CREATE TABLE x AS SELECT 1 AS a;\n", "SELECT is not allowed"},
        {TABLE "INSERT INTO llama_bench SELECT * FROM llama_bench;\n", "reading table llama_bench is not allowed"},
        {TABLE "INSERT INTO llama_bench (n_prompt) SELECT rowid FROM sqlite_master;\n",
         "reading table sqlite_master is not allowed"},
        {TABLE "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO llama_bench (n_prompt) "
               "SELECT x FROM c;\n", "not allowed"},
        {TABLE "DELETE FROM llama_bench;\n", "DELETE FROM llama_bench is not allowed"},
        {TABLE "UPDATE llama_bench SET n_prompt = 1;\n", "UPDATE llama_bench is not allowed"},
        {TABLE "DROP TABLE llama_bench;\n", "DROP TABLE llama_bench is not allowed"},
        {TABLE "ALTER TABLE llama_bench ADD COLUMN x;\n", "ALTER TABLE"},
        {TABLE "SAVEPOINT a;\n", "SAVEPOINT a is not allowed"},
        {TABLE "UPDATE sqlite_master SET sql = 'x';\n", "table sqlite_master may not be modified"},
        {TABLE "DELETE FROM sqlite_master;\n", "table sqlite_master may not be modified"},
        {TABLE "INSERT INTO sqlite_temp_master VALUES ('table', 'x', 'x', 0, 'x');\n", "may not be modified"},
        {TABLE "DETACH main;\n", "not allowed"},
        {TABLE "INSERT INTO llama_bench VALUES (?2, 1, 1.0);\n", "line 6: variable number must be between ?1 and ?1"},
        {TABLE "INSERT INTO llama_bench VALUES ('x', -(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(-(1)))))))))))))))))), 1.0);\n",
         "Expression tree is too large"},
        {TABLE "INSERT INTO llama_bench VALUES ('x', 1, 1.0)\n", "line 6: the output ends inside a statement"},
        {TABLE "INSERT INTO llama_bench VALUES ('x', 1, 1.0);\nINSERT INTO llama_bench VALUES ('x",
         "line 7: the output"},
        {TABLE "INSERT INTO llama_bench VALUES ('x', 1);\n",
         "line 6: table llama_bench has 3 columns but 2 values were supplied"},
        {TABLE "INSERT INTO nope VALUES (1);\n", "line 6: no such table: nope"},
        {TABLE "SELECT 1;\nfrob;\n", "near \"frob\": syntax error"},
        {"CREATE TABLE llama_bench (n_prompt INTEGER PRIMARY KEY);\nINSERT INTO llama_bench VALUES (1);\n"
         "INSERT INTO llama_bench VALUES (1);\n", "line 3: UNIQUE constraint failed: llama_bench.n_prompt"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++)
        expect_refused(cases[i][0], cases[i][1]);
}

/* ATTACH would create a file: refused, and none is made. */
static void test_attach_touches_nothing(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/attached.db", dir);
    char *text = lvd_xasprintf(TABLE "ATTACH DATABASE '%s' AS x;\nCREATE TABLE x.llama_bench (n_prompt);\n", path);
    expect_refused(text, "line 6: ATTACH");
    assert_int_equal(access(path, F_OK), -1);
    free(text);
    text = lvd_xasprintf("ATTACH DATABASE '%s' AS x;\n", path);
    expect_refused(text, "line 1: ATTACH");
    assert_int_equal(access(path, F_OK), -1);
    free(text);
    free(path);
    tu_tmpdir_free(dir);
}

/* Limits: a value past 1 MiB, 200 columns, a NUL byte. */
static void test_limits(void **state)
{
    (void)state;
    lvd_sb big = {0};
    lvd_sb_adds(&big, TABLE "INSERT INTO llama_bench VALUES ('");
    for (int i = 0; i < (1 << 20) + 16; i++)
        lvd_sb_addc(&big, 'x');
    lvd_sb_adds(&big, "', 1, 1.0);\n");
    expect_refused(lvd_sb_str(&big), "line 6: string or blob too big");
    lvd_sb_reset(&big);
    lvd_sb_adds(&big, "CREATE TABLE llama_bench (c0");
    for (int i = 1; i < 200; i++)
        lvd_sb_addf(&big, ", c%d", i);
    lvd_sb_adds(&big, ");\n");
    expect_refused(lvd_sb_str(&big), "line 1: too many columns");
    lvd_sb_free(&big);

    const char nul[] = TABLE "INSERT INTO llama_bench VALUES ('x\0', 1, 1.0);\n";
    lvd_sb rows;
    lvd_err err = {0};
    size_t tables;
    assert_int_equal(store_llama_bench_sql_each(nul, sizeof nul - 1, "in.sql", 3, &tables, collect, &rows, &err), -1);
    assert_string_equal(err.msg, "in.sql: line 8: a NUL byte (not llama-bench -o sql output)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_typed),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_attach_touches_nothing),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
