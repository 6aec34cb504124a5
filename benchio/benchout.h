/* benchout.h: parses what llama-bench prints with `-o json` (one array),
 * `-o jsonl` (one object per line) and `-o sql` (CREATE TABLE + INSERT lines,
 * as compare-llama-bench.py users keep it) into lvd_result records, and
 * flags their warm-up samples (the rule is stats/stats.h's stats_warmup).
 * Every llama-bench since its first (Aug 2023) is read: fields it gained,
 * renamed or retyped over the years take the value their era meant when
 * absent (benchio/benchrow.c says which), and llama.cpp's log lines that
 * `2>&1` puts before or among the results are skipped and counted
 * (benchio/benchfind.c). Shared by the bench runner and `lvd store import`, so
 * a result is flagged the same way whether it was measured or imported. Not
 * for running llama-bench, for the statistics themselves, or for the store
 * (see benchio/import.h for importing a file). */
#ifndef LVD_BENCHOUT_H
#define LVD_BENCHOUT_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

typedef enum benchio_format {
    BENCHIO_FMT_AUTO = 0,  /* detect from the first bytes */
    BENCHIO_FMT_JSON,
    BENCHIO_FMT_JSONL,
    BENCHIO_FMT_SQL,
} benchio_format;

/* One object (json, jsonl) or INSERT row (sql) that llama-bench printed: the
 * test result and what llama-bench said about itself and the model. */
typedef struct benchio_row {
    lvd_result result;      /* test, reported params, samples, reported_json */
    char *build_commit;     /* as printed ("d32676d77", "unknown"); NULL when absent */
    int64_t build_number;   /* 0 when absent */
    char *model_filename;   /* NULL when absent */
    char *model_type;       /* "llama 1B F16"; NULL when absent */
    int64_t model_size;     /* bytes of tensor data as llama-bench counts them; -1 when absent */
    char devices[64];       /* the "devices" field ("auto", "CUDA0"); "auto" when absent */
    char gpu_info[128];     /* the "gpu_info" field ("NVIDIA H200"; "" for a CPU build or absent) */
    char test_time[40];     /* as printed, "" when absent */
    int64_t test_epoch;     /* test_time in seconds since the epoch; 0 when absent */
    double avg_ts, stddev_ts; /* as printed; NAN when absent */
} benchio_row;

typedef struct benchio_rows {
    benchio_row *v;
    size_t n;
    benchio_format format;    /* the format that was parsed */
    size_t lines_skipped;   /* non-blank lines that were not llama-bench output (the log
                               that `2>&1` puts before or among the results) */
    char first_skipped[80]; /* the first of them, cut short; "" when none */
} benchio_rows;

/* Names a format: "json", "jsonl", "sql" ("auto" for BENCHIO_FMT_AUTO). */
const char *benchio_format_name(benchio_format f);
/* Parses "json" / "jsonl" / "sql" / "auto"; 0 or -1. */
int benchio_format_parse(const char *s, benchio_format *out);

/* Detects the format of text from its first line that is llama-bench output
 * (lines before it are llama.cpp's log: see benchio_parse_rows). 0 or -1 with
 * err naming name and saying what the text looks like instead (markdown or
 * csv output, empty, an SQLite database, no llama-bench output at all). */
int benchio_detect_format(const char *text, size_t len, const char *name, benchio_format *out,
                        lvd_err *err);

/* Parses text (not necessarily NUL-terminated) in format fmt (AUTO: detected)
 * into out, one row per test result, in the order printed. Lines that are
 * not llama-bench output are skipped and counted (out->lines_skipped): those
 * before the output begins (every format) and, in jsonl, lines among the
 * results that do not start with '{'; in json those after the array too,
 * unless they start with '[' or '{'. Truncated or garbled output, a row
 * without n_prompt/n_gen or without any throughput, and samples arrays of
 * different lengths are errors naming name and the line. sql rows have no
 * samples (n = 0) but keep avg_ts / stddev_ts in reported_json. Zero rows is
 * an error. Free out with benchio_rows_free. */
int benchio_parse_rows(const char *text, size_t len, benchio_format fmt, const char *name,
                     benchio_rows *out, lvd_err *err);
void benchio_rows_free(benchio_rows *rows);
void benchio_row_free(benchio_row *row);

struct cJSON;

/* Converts o (shaped as `-o json` prints a result, of any era) into a row and
 * appends it to out, whose capacity is *cap; on failure the half-built row is
 * released. where ("line 3", "result 2") goes into the error. */
int benchio_rows_add_object(benchio_rows *out, size_t *cap, const struct cJSON *o, const char *name,
                          const char *where, lvd_err *err);

/* 1 when a build_commit llama-bench printed and a commit a user gave name the
 * same commit: equal, or one a prefix of the other of at least 7 characters
 * (llama-bench printed git's short hash, 7 or 8 characters before the
 * SemVer releases and 9 since; --version and GitHub give 9 or 40). */
int benchio_commit_matches(const char *printed, const char *given);

/* Parses one llama-bench invocation's output (any format) into run_out:
 * appends the results and sets build_commit and build_number. Every row must
 * report the same build. The rest of run_out is left to the caller. */
int benchio_parse_output(const char *text, size_t len, const char *name, lvd_run *run_out,
                       lvd_err *err);

/* llama-bench's test name: "pp512", "tg128", "pp512+tg128", with "@d1024"
 * appended when n_depth > 0. */
void benchio_test_name(int n_prompt, int n_gen, int n_depth, char *buf, size_t len);

/* 1 when the result asked for GPU layers (reported n_gpu_layers > 0) but
 * llama-bench ran on CPU backends only: a build that silently ignored -ngl. */
int benchio_result_gpu_ignored(const lvd_result *r);

/* 1 when r has samples and every one is finite and > 0 (a throughput). */
int benchio_result_samples_valid(const lvd_result *r);

/* 1 when r holds no samples but llama-bench printed its mean (avg_ts > 0 in
 * the reported object): a build that prints only means (ik_llama.cpp's
 * before its samples_ns; a SQL or CSV import). */
int benchio_result_means_only(const lvd_result *r);
/* Makes the mean of a means-only r its one sample (avg_ts; avg_ns where
 * printed): what a run of one repetition (-r 1) measured, exactly. 0, or -1
 * when r is not means-only. */
int benchio_result_mean_as_sample(lvd_result *r);

/* Sets r->warmup (reallocated, one flag per sample) from the warm-up rule
 * (stats_warmup) over r's samples in the order llama-bench ran them: the
 * leading slow samples of one invocation are flagged 1, the rest 0. A result
 * whose samples are not all valid gets no flags (all 0). */
void benchio_result_flag_warmup(lvd_result *r);

#endif
