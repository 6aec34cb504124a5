/* metrics.c: Prometheus' text format (see metrics.h). */
#include "serve/metrics.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_char(char c, int first)
{
    return isalpha((unsigned char)c) || c == '_' || c == ':' || (!first && isdigit((unsigned char)c));
}

/* The series (name and labels) at the start of s: its length, 0 when s
 * does not start with one. */
static size_t series_len(const char *s)
{
    size_t i = 0;
    while (s[i] && name_char(s[i], i == 0))
        i++;
    if (!i || s[i] != '{')
        return i;
    int quoted = 0;
    for (i++; s[i]; i++) {
        if (quoted && s[i] == '\\' && s[i + 1])
            i++;
        else if (s[i] == '"')
            quoted = !quoted;
        else if (!quoted && s[i] == '}')
            return i + 1;
    }
    return 0;
}

/* A sample value as Prometheus writes it. 0, or -1. */
static int parse_value(const char *s, double *v)
{
    if (!strcmp(s, "NaN")) {
        *v = NAN;
        return 0;
    }
    if (!strcmp(s, "+Inf") || !strcmp(s, "-Inf")) {
        *v = s[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    return lvd_parse_double(s, v);
}

/* One sample line into *m. 0, or -1. */
static int sample(const char *line, serve_metric *m)
{
    size_t k = series_len(line);
    if (!k || (line[k] != ' ' && line[k] != '\t'))
        return -1;
    char *rest = lvd_xstrdup(line + k);
    char *save, *value = strtok_r(rest, " \t", &save), *stamp = strtok_r(NULL, " \t", &save);
    int64_t ts;
    int rc = value && parse_value(value, &m->value) == 0 && (!stamp || lvd_parse_i64(stamp, &ts) == 0) &&
                     !strtok_r(NULL, " \t", &save)
                 ? 0
                 : -1;
    free(rest);
    if (rc == 0)
        m->name = lvd_xstrndup(line, k);
    return rc;
}

int serve_metrics_parse(const char *text, size_t n, serve_metric **out, size_t *n_out, lvd_err *err)
{
    *out = NULL;
    *n_out = 0;
    serve_metric *v = NULL;
    size_t cnt = 0, lineno = 0;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (text + i)) : n - i;
        int nul = memchr(text + i, '\0', len) != NULL;
        char *line = lvd_xstrndup(text + i, len);
        i += len + (nl != NULL);
        lineno++;
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        serve_metric m = {0};
        int rc = nul ? -1 : l == 0 || line[0] == '#' ? 1 : sample(line, &m);
        if (rc < 0) {
            lvd_errf(err, "line %zu: '%.80s' is not a Prometheus sample", lineno, line);
            free(line);
            serve_metrics_free(v, cnt);
            return -1;
        }
        free(line);
        if (rc == 0) {
            v = lvd_xrealloc(v, (cnt + 1) * sizeof *v);
            v[cnt++] = m;
        }
    }
    *out = v;
    *n_out = cnt;
    return 0;
}

void serve_metrics_free(serve_metric *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

double serve_metric_get(const serve_metric *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return v[i].value;
    return NAN;
}
