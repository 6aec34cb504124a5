/* util.h: memory, growable strings, error messages and small file helpers that
 * every module shares. Not for anything with a domain meaning (see the modules). */
#ifndef LVD_UTIL_H
#define LVD_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define LVD_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation that cannot fail: on exhaustion it prints one line and aborts,
 * as git's xmalloc does. Use for small bookkeeping, never for sizes taken from
 * untrusted input without a bound check first. */
void *lvd_xmalloc(size_t n);
void *lvd_xcalloc(size_t n, size_t size);
void *lvd_xrealloc(void *p, size_t n);
char *lvd_xstrdup(const char *s);
char *lvd_xstrndup(const char *s, size_t n);
char *lvd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable, always NUL-terminated byte string. Zero-initialised is valid. */
typedef struct lvd_sb {
    char *buf;
    size_t len;
    size_t cap;
} lvd_sb;

void lvd_sb_grow(lvd_sb *sb, size_t extra);
void lvd_sb_add(lvd_sb *sb, const void *data, size_t n);
void lvd_sb_adds(lvd_sb *sb, const char *s);
void lvd_sb_addc(lvd_sb *sb, char c);
void lvd_sb_addf(lvd_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lvd_sb_vaddf(lvd_sb *sb, const char *fmt, va_list ap);
void lvd_sb_reset(lvd_sb *sb);             /* len = 0, keeps memory */
void lvd_sb_free(lvd_sb *sb);              /* frees, back to zero state */
char *lvd_sb_detach(lvd_sb *sb);           /* caller owns the string ("" if empty) */
const char *lvd_sb_str(const lvd_sb *sb);  /* never NULL */

/* One-line error message carried up to the tool's main, which prints it.
 * lvd_errf returns -1 so that `return lvd_errf(err, ...)` reads naturally.
 * err may be NULL. */
typedef struct lvd_err {
    char msg[1024];
} lvd_err;

int lvd_errf(lvd_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lvd_err_clear(lvd_err *err);

/* Reads a whole file (at most max bytes; more is an error). 0 or -1. */
int lvd_read_file(const char *path, size_t max, lvd_sb *out, lvd_err *err);
/* Writes data to path atomically: temp file beside it, fsync, rename, fsync dir. */
int lvd_write_file_atomic(const char *path, const void *data, size_t n, lvd_err *err);
/* The same; sync 0 skips both fsyncs: readers never see a partial file, but
 * after a crash the file may be empty or short (for a file its reader
 * checks whole and can do without, such as a cache). */
int lvd_write_file_replace(const char *path, const void *data, size_t n, int sync, lvd_err *err);
/* mkdir -p with mode 0755 for every missing component. */
int lvd_mkdir_p(const char *path, lvd_err *err);
/* lvd_mkdir_p of the directory path is in (nothing for a bare name or "/x"). */
int lvd_mkdir_parent(const char *path, lvd_err *err);
/* Removes a directory tree (no symlink following). Errors ignored except the top. */
int lvd_rm_rf(const char *path);

/* Wall clock in seconds since the epoch, and a monotonic clock in ms. */
int64_t lvd_now(void);
int64_t lvd_mono_ms(void);

/* Strict number parsing: the whole string must be a number in range. 0 or -1. */
int lvd_parse_i64(const char *s, int64_t *out);
int lvd_parse_double(const char *s, double *out);
/* Durations like "90", "90s", "15m", "6h", "2d" into seconds. 0 or -1. */
int lvd_parse_duration(const char *s, int64_t *seconds);

/* The one reader of time text: ISO-8601 UTC as the store, llama-bench's
 * test_time and the release API write it, "2026-11-30T14:38:55Z" (the Z may
 * be left out), or a date alone, "2026-11-30" (its midnight), into seconds
 * since the epoch. Nothing may follow. 0, or -1. */
int lvd_parse_utc(const char *s, int64_t *out);
/* t as that text writes it: "2026-11-30T14:38:55Z" (buf of 21 bytes or
 * more); "" when t cannot be written. */
void lvd_format_utc(int64_t t, char *buf, size_t len);

/* "on" or "off" into 1 or 0, for every switch a user writes (config files,
 * profiles, command lines): on/off, 1/0, yes/no, true/false, lower case as
 * written. 0, or -1 (*out untouched) for anything else, "auto" included:
 * a switch that also takes auto checks for it first. */
int lvd_parse_onoff(const char *s, int *out);

/* The last component of path (after its last '/'; path itself without one). */
const char *lvd_base_name(const char *path);
/* qsort comparator of doubles, ascending (NaN compares equal to everything). */
int lvd_cmp_double(const void *a, const void *b);

/* Appends word to sb quoted for a POSIX shell: as is when it is non-empty
 * and only [A-Za-z0-9_./=:,+-]; else in single quotes, each ' written as
 * '\'' (so '' for the empty word). Newlines and any bytes survive. */
void lvd_shell_quote(lvd_sb *sb, const char *word);
/* The same, always in single quotes (a command word that holds '=' must not
 * read as an assignment). */
void lvd_shell_quote_always(lvd_sb *sb, const char *word);

/* True when s starts with prefix / ends with suffix. */
int lvd_starts_with(const char *s, const char *prefix);
int lvd_ends_with(const char *s, const char *suffix);

/* Splits "a,b,c" into a NULL-terminated array of fresh strings (empty items dropped). */
char **lvd_split(const char *s, char sep, size_t *count);
void lvd_strv_free(char **v);

/* This machine's name (for keying measurements by host): LVD_HOST, else
 * gethostname; a tool given --host NAME acts for NAME (lvd_hostname_set:
 * its engines, its runs), as on that machine. */
const char *lvd_hostname(void);
void lvd_hostname_set(const char *name);

/* The one helper set for argv and other string vectors: appends s (the
 * vector takes it) to the NULL-terminated vector *v of *n strings (*v NULL
 * and *n 0 to start; free with lvd_strv_free). */
void lvd_strv_push(char ***v, size_t *n, char *s);
/* Appends the string fmt and its arguments (or ap) format: a copy of a
 * word is lvd_strv_pushf(v, n, "%s", word). */
void lvd_strv_pushf(char ***v, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void lvd_strv_vpushf(char ***v, size_t *n, const char *fmt, va_list ap);
/* *v, or when nothing was pushed a new empty vector (just its NULL): a
 * vector handed on is never NULL. */
char **lvd_strv_finish(char ***v);

/* A growing vector of doubles: {0} is empty; free(v) frees it. */
typedef struct lvd_dvec {
    double *v;
    size_t n, cap;
} lvd_dvec;
/* Appends x to d. */
void lvd_dvec_push(lvd_dvec *d, double x);

#endif
