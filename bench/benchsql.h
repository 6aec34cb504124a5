/* benchsql.h: the seam between the llama-bench output parser (benchout.c) and
 * its `-o sql` reader (benchsql.c), private to those two files; everyone else
 * calls bench_parse_rows / bench_parse_output in bench/benchout.h. Not a
 * general SQL parser, and not for the SQLite databases compare-llama-bench.py
 * writes (store/benchdb.h reads those). */
#ifndef LVD_BENCHSQL_H
#define LVD_BENCHSQL_H

#include "bench/benchout.h"

#include <stddef.h>

struct cJSON;

/* benchsql.c: parses text[0..len) as llama-bench `-o sql` statements and
 * appends one row per INSERT tuple to out. 0 or -1 with err naming name and
 * the line. */
int bench_parse_sql(const char *text, size_t len, const char *name, bench_rows *out, lvd_err *err);

/* benchout.c: converts o (shaped as `-o json` prints a result) into a row and
 * appends it to out, whose capacity is *cap; on failure the half-built row is
 * released. where ("line 3", "result 2") goes into the error. */
int bench_rows_add_object(bench_rows *out, size_t *cap, const struct cJSON *o, const char *name,
                          const char *where, lvd_err *err);

/* benchout.c: how much of p (up to end) to quote in an error: at most 20
 * bytes, one line. */
int bench_snippet_len(const char *p, const char *end);

#endif
