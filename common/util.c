/* util.c: memory, growable strings, error messages and small file helpers.
 * See util.h for the contracts. */
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(size_t n)
{
    fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", n);
    abort();
}

void *lvd_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *lvd_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *lvd_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *lvd_xstrdup(const char *s)
{
    return lvd_xstrndup(s, strlen(s));
}

char *lvd_xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = lvd_xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *lvd_xasprintf(const char *fmt, ...)
{
    lvd_sb sb = {0};
    va_list ap;
    va_start(ap, fmt);
    lvd_sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    return lvd_sb_detach(&sb);
}

void lvd_sb_grow(lvd_sb *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1) {
        if (cap > SIZE_MAX / 2)
            oom(SIZE_MAX);
        cap *= 2;
    }
    sb->buf = lvd_xrealloc(sb->buf, cap);
    sb->cap = cap;
}

void lvd_sb_add(lvd_sb *sb, const void *data, size_t n)
{
    lvd_sb_grow(sb, n);
    if (n)
        memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void lvd_sb_adds(lvd_sb *sb, const char *s)
{
    lvd_sb_add(sb, s, strlen(s));
}

void lvd_sb_addc(lvd_sb *sb, char c)
{
    lvd_sb_add(sb, &c, 1);
}

void lvd_sb_vaddf(lvd_sb *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    lvd_sb_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void lvd_sb_addf(lvd_sb *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lvd_sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void lvd_sb_reset(lvd_sb *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

void lvd_sb_free(lvd_sb *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

char *lvd_sb_detach(lvd_sb *sb)
{
    char *s = sb->buf ? sb->buf : lvd_xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return s;
}

const char *lvd_sb_str(const lvd_sb *sb)
{
    return sb->buf ? sb->buf : "";
}

int lvd_errf(lvd_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        /* one line: fold any newline an external message carried */
        for (char *p = err->msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    return -1;
}

void lvd_err_clear(lvd_err *err)
{
    if (err)
        err->msg[0] = '\0';
}

int lvd_read_file(const char *path, size_t max, lvd_sb *out, lvd_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lvd_errf(err, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return lvd_errf(err, "%s: is a directory", path);
    }
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return lvd_errf(err, "%s: read failed: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        if (out->len + (size_t)n > max) {
            close(fd);
            return lvd_errf(err, "%s: larger than %zu bytes", path, max);
        }
        lvd_sb_add(out, buf, (size_t)n);
    }
    close(fd);
    if (!out->buf)
        lvd_sb_add(out, "", 0);
    return 0;
}

static int fsync_dir_of(const char *path)
{
    char *dir = lvd_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int lvd_write_file_atomic(const char *path, const void *data, size_t n, lvd_err *err)
{
    return lvd_write_file_replace(path, data, n, 1, err);
}

int lvd_write_file_replace(const char *path, const void *data, size_t n, int sync, lvd_err *err)
{
    char *tmp = lvd_xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        lvd_errf(err, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    const char *p = data;
    size_t left = n;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            lvd_errf(err, "%s: write failed: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if ((sync && fsync(fd) != 0) || close(fd) != 0) {
        lvd_errf(err, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        lvd_errf(err, "%s: cannot rename into place: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    if (sync)
        fsync_dir_of(path);
    return 0;
}

int lvd_mkdir_parent(const char *path, lvd_err *err)
{
    char *dir = lvd_xstrdup(path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = '\0';
        rc = lvd_mkdir_p(dir, err);
    }
    free(dir);
    return rc;
}

int lvd_mkdir_p(const char *path, lvd_err *err)
{
    char *p = lvd_xstrdup(path);
    size_t len = strlen(p);
    for (size_t i = 1; i <= len; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            lvd_errf(err, "%s: cannot create directory: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        p[i] = c;
    }
    free(p);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return lvd_errf(err, "%s: not a directory", path);
    return 0;
}

int lvd_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *child = lvd_xasprintf("%s/%s", path, e->d_name);
            lvd_rm_rf(child);
            free(child);
        }
        closedir(d);
    }
    return rmdir(path);
}

int64_t lvd_now(void)
{
    const char *fake = getenv("LVD_FAKE_NOW"); /* tests pin the clock */
    int64_t v;
    if (fake && lvd_parse_i64(fake, &v) == 0)
        return v;
    return (int64_t)time(NULL);
}

int64_t lvd_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int lvd_parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int lvd_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int lvd_parse_utc(const char *s, int64_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = s ? strptime(s, "%Y-%m-%d", &tm) : NULL;
    if (end && *end == 'T') {
        end = strptime(end + 1, "%H:%M:%S", &tm);
        if (end && *end == 'Z')
            end++;
    }
    if (!end || *end)
        return -1;
    *out = (int64_t)timegm(&tm);
    return 0;
}

void lvd_format_utc(int64_t t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, len, "%s", "");
}

int lvd_parse_duration(const char *s, int64_t *seconds)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || v < 0 || end == s)
        return -1;
    int64_t mul = 1;
    if (*end == 's')
        mul = 1;
    else if (*end == 'm')
        mul = 60;
    else if (*end == 'h')
        mul = 3600;
    else if (*end == 'd')
        mul = 86400;
    else if (*end != '\0')
        return -1;
    if (*end && end[1])
        return -1;
    if (v > INT64_MAX / mul)
        return -1;
    *seconds = v * mul;
    return 0;
}

int lvd_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int lvd_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

char **lvd_split(const char *s, char sep, size_t *count)
{
    size_t n = 0, cap = 4;
    char **v = lvd_xcalloc(cap + 1, sizeof *v);
    const char *p = s;
    while (p && *p) {
        const char *q = strchr(p, sep);
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len) {
            if (n == cap) {
                cap *= 2;
                v = lvd_xrealloc(v, (cap + 1) * sizeof *v);
            }
            v[n++] = lvd_xstrndup(p, len);
        }
        p = q ? q + 1 : NULL;
    }
    v[n] = NULL;
    if (count)
        *count = n;
    return v;
}

void lvd_strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

static char hostname_buf[256];

void lvd_hostname_set(const char *name)
{
    snprintf(hostname_buf, sizeof hostname_buf, "%s", name);
}

const char *lvd_hostname(void)
{
    char *name = hostname_buf;
    if (!name[0]) {
        const char *env = getenv("LVD_HOST"); /* override for tests and imports */
        if (env && *env)
            snprintf(name, sizeof hostname_buf, "%s", env);
        else if (gethostname(name, sizeof hostname_buf - 1) != 0 || !name[0])
            snprintf(name, sizeof hostname_buf, "localhost");
        name[sizeof hostname_buf - 1] = '\0';
    }
    return name;
}

void lvd_strv_push(char ***v, size_t *n, char *s)
{
    *v = lvd_xrealloc(*v, (*n + 2) * sizeof **v);
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

void lvd_strv_vpushf(char ***v, size_t *n, const char *fmt, va_list ap)
{
    lvd_sb sb = {0};
    lvd_sb_vaddf(&sb, fmt, ap);
    lvd_strv_push(v, n, lvd_sb_detach(&sb));
}

void lvd_strv_pushf(char ***v, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lvd_strv_vpushf(v, n, fmt, ap);
    va_end(ap);
}

char **lvd_strv_finish(char ***v)
{
    if (!*v)
        *v = lvd_xcalloc(1, sizeof **v);
    return *v;
}

void lvd_dvec_push(lvd_dvec *d, double x)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->v = lvd_xrealloc(d->v, d->cap * sizeof *d->v);
    }
    d->v[d->n++] = x;
}

int lvd_parse_onoff(const char *s, int *out)
{
    static const char *const on[] = {"on", "1", "yes", "true"}, *const off[] = {"off", "0", "no", "false"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(on); i++) {
        if (!strcmp(s, on[i]) || !strcmp(s, off[i])) {
            *out = !strcmp(s, on[i]);
            return 0;
        }
    }
    return -1;
}

const char *lvd_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int lvd_cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int shell_safe(const char *w)
{
    if (!*w)
        return 0;
    for (const char *c = w; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              strchr("_./=:,+-", *c)))
            return 0;
    return 1;
}

void lvd_shell_quote_always(lvd_sb *sb, const char *word)
{
    lvd_sb_addc(sb, '\'');
    for (const char *c = word; *c; c++) {
        if (*c == '\'')
            lvd_sb_adds(sb, "'\\''");
        else
            lvd_sb_addc(sb, *c);
    }
    lvd_sb_addc(sb, '\'');
}

void lvd_shell_quote(lvd_sb *sb, const char *word)
{
    if (shell_safe(word))
        lvd_sb_adds(sb, word);
    else
        lvd_shell_quote_always(sb, word);
}
