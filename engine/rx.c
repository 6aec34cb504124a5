/* rx.c: see rx.h. */
#include "engine/rx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int engine_rx_compile(engine_rx *r, const char *pattern, uint32_t opts, const char *what, lvd_err *err)
{
    int code;
    PCRE2_SIZE off;
    r->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &code, &off, NULL);
    if (!r->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return lvd_errf(err, "%s: bad pattern at %zu: %s", what, (size_t)off, (char *)msg);
    }
    r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
    return 0;
}

void engine_rx_free(engine_rx *r)
{
    pcre2_match_data_free(r->md);
    pcre2_code_free(r->code);
}

int engine_rx_match(engine_rx *r, const char *s, size_t len)
{
    return pcre2_match(r->code, (PCRE2_SPTR)s, len, 0, 0, r->md, NULL) > 0;
}

int engine_rx_group(engine_rx *r, const char *s, int g, char *buf, size_t len)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
    if (ov[2 * g] == PCRE2_UNSET) { /* a group the match did not take part in: empty */
        if (!len)
            return -1;
        buf[0] = '\0';
        return 0;
    }
    size_t n = ov[2 * g + 1] - ov[2 * g];
    if (n >= len)
        return -1;
    memcpy(buf, s + ov[2 * g], n);
    buf[n] = '\0';
    return 0;
}

/* Colour codes (common/log.cpp's g_col), the timestamp, the level letter. */
#define ANSI "(?:\\x1b\\[[0-9;]*m)*"
static const char RX_LOG_PREFIX[] = "^" ANSI "(?:[0-9]{1,6}\\.[0-9]{2}\\.[0-9]{3}\\.[0-9]{3}" ANSI " )?" ANSI
                                    "[IWED] " ANSI;

int engine_rx_fixed(pcre2_code **re, const char *pattern, uint32_t opts, const char *what, const char *s,
                    size_t len, size_t *end)
{
    if (!*re) {
        int code;
        PCRE2_SIZE off;
        *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &code, &off, NULL);
        if (!*re) { /* the pattern is fixed: a bug every test run catches */
            fprintf(stderr, "fatal: the %s pattern does not compile at %zu\n", what, (size_t)off);
            abort();
        }
    }
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) {
        fprintf(stderr, "fatal: out of memory for a regex match\n");
        abort();
    }
    int rc = pcre2_match(*re, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
    if (rc >= 0 && end)
        *end = pcre2_get_ovector_pointer(md)[1];
    pcre2_match_data_free(md);
    return rc >= 0;
}

size_t engine_rx_log_prefix(const char *line, size_t len)
{
    static pcre2_code *re;
    size_t n = 0;
    engine_rx_fixed(&re, RX_LOG_PREFIX, 0, "log-prefix", line, len, &n);
    return n;
}

int engine_rx_each_line(const char *text, engine_rx_line_fn fn, void *ctx)
{
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        size_t l = len;
        if (l && p[l - 1] == '\r')
            l--;
        size_t skip = engine_rx_log_prefix(p, l);
        int rc = fn(ctx, p + skip, l - skip);
        if (rc)
            return rc;
        p = nl ? nl + 1 : p + len;
    }
    return 0;
}
