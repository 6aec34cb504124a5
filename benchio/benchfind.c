/* benchfind.c: where llama-bench's output begins, and its format (see
 * benchout_internal.h). `llama-bench -o jsonl > out.jsonl 2>&1`, the way
 * many users capture it, puts llama.cpp's log (`ggml_cuda_init: found 1 CUDA
 * devices:`, the device lines, `load_backend: ...`) before the results; the
 * output begins at its first line that only llama-bench prints: a '{' (jsonl),
 * a line that is only '[' (json; or any '[' on the first line, as jq -c
 * writes it), a CREATE, INSERT or BEGIN (sql; or a "--" comment on the first
 * line), '|' (md) or "build_commit," (csv). Every line before it is skipped and counted. Not
 * for reading the formats (benchout.c) or mapping a result (benchrow.c). */
#include "benchio/benchout_internal.h"

#include "store/benchdb.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef enum { LINE_BLANK, LINE_LOG, LINE_JSON, LINE_JSONL, LINE_SQL, LINE_MD, LINE_CSV } line_kind;

int benchio_only_space(const char *p, const char *end)
{
    for (; p < end; p++)
        if (!isspace((unsigned char)*p))
            return 0;
    return 1;
}

void benchio_skip_line(benchio_rows *rows, const char *p, const char *eol)
{
    if (rows->lines_skipped++)
        return;
    if (eol > p && eol[-1] == '\r')
        eol--;
    size_t n = 0, cap = sizeof rows->first_skipped - 4;
    for (; p < eol && n < cap; p++)
        rows->first_skipped[n++] = isprint((unsigned char)*p) ? *p : '?';
    snprintf(rows->first_skipped + n, sizeof rows->first_skipped - n, "%s", p < eol ? "..." : "");
}

/* 1 when [p, end) starts with the SQL keyword w (any case) as a whole word. */
static int starts_keyword(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(end - p) >= n && !strncasecmp(p, w, n) &&
           (p + n == end || !(isalnum((unsigned char)p[n]) || p[n] == '_'));
}

/* What the line [p, eol) is; first: it is the text's first non-blank line. */
static line_kind kind_of(const char *p, const char *eol, int first)
{
    while (p < eol && isspace((unsigned char)*p))
        p++;
    if (p == eol)
        return LINE_BLANK;
    if (*p == '{')
        return LINE_JSONL;
    if (*p == '[') /* llama-bench prints "[" alone; a log line may start with '[' */
        return first || benchio_only_space(p + 1, eol) ? LINE_JSON : LINE_LOG;
    if (starts_keyword(p, eol, "CREATE") || starts_keyword(p, eol, "INSERT") || starts_keyword(p, eol, "BEGIN") ||
        (first && eol - p >= 2 && !strncmp(p, "--", 2)))
        return LINE_SQL;
    if (*p == '|')
        return LINE_MD;
    if (eol - p >= 13 && !strncmp(p, "build_commit,", 13))
        return LINE_CSV;
    return LINE_LOG;
}

static int wanted(line_kind k, benchio_format want)
{
    switch (want) {
    case BENCHIO_FMT_JSON: return k == LINE_JSON;
    case BENCHIO_FMT_JSONL: return k == LINE_JSONL;
    case BENCHIO_FMT_SQL: return k == LINE_SQL;
    default: return k != LINE_LOG && k != LINE_BLANK;
    }
}

/* What llama-bench output of kind k found first means; 0 with *fmt set, or -1. */
static int found(line_kind k, const char *name, benchio_format *fmt, lvd_err *err)
{
    switch (k) {
    case LINE_JSON: *fmt = BENCHIO_FMT_JSON; return 0;
    case LINE_JSONL: *fmt = BENCHIO_FMT_JSONL; return 0;
    case LINE_SQL: *fmt = BENCHIO_FMT_SQL; return 0;
    case LINE_MD:
        return lvd_errf(err, "%s: llama-bench markdown output (-o md) is rounded and has no samples; "
                        "re-run with -o json, -o jsonl or -o sql", name);
    default:
        return lvd_errf(err, "%s: llama-bench csv output (-o csv) cannot be imported; "
                        "re-run with -o json, -o jsonl or -o sql", name);
    }
}

/* The error for text in which no line is llama-bench output. */
static int nothing_found(const char *text, size_t len, size_t lines, const char *name, lvd_err *err)
{
    if (lines == 0)
        return lvd_errf(err, "%s: empty (llama-bench printed nothing?)", name);
    if (store_is_sqlite_file(text, len))
        return lvd_errf(err, "%s: an SQLite database, not llama-bench -o sql text; "
                        "dump it with: sqlite3 FILE .dump", name);
    return lvd_errf(err, "%s: not llama-bench output (expected -o json, -o jsonl or -o sql): none of its %zu "
                    "lines is a result", name, lines);
}

int benchio_find_output(const char *text, size_t len, benchio_format want, const char *name, benchio_format *fmt,
                      size_t *start, benchio_rows *rows, lvd_err *err)
{
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    benchio_rows before = {0};
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        line_kind k = kind_of(p, eol, before.lines_skipped == 0);
        if (wanted(k, want)) {
            *start = (size_t)(p - text);
            rows->lines_skipped += before.lines_skipped;
            memcpy(rows->first_skipped, before.first_skipped, sizeof rows->first_skipped);
            if (want != BENCHIO_FMT_AUTO) {
                *fmt = want;
                return 0;
            }
            return found(k, name, fmt, err);
        }
        if (k != LINE_BLANK)
            benchio_skip_line(&before, p, eol);
        p = nl ? nl + 1 : end;
    }
    if (want == BENCHIO_FMT_AUTO)
        return nothing_found(text, len, before.lines_skipped, name, err);
    *fmt = want; /* the reader says what is wrong with it */
    *start = 0;
    return 0;
}

int benchio_detect_format(const char *text, size_t len, const char *name, benchio_format *out, lvd_err *err)
{
    benchio_rows skipped = {0};
    size_t start;
    return benchio_find_output(text, len, BENCHIO_FMT_AUTO, name, out, &start, &skipped, err);
}
