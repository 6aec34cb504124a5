/* rx.c: see rx.h. */
#include "engine/rx.h"

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
    size_t n = ov[2 * g + 1] - ov[2 * g];
    if (n >= len)
        return -1;
    memcpy(buf, s + ov[2 * g], n);
    buf[n] = '\0';
    return 0;
}
