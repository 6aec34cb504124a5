/* format.c: fixed formats for the evidence page and charts (see format.h). */
#include "evidence/format.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v with d decimals, never "-0". */
static void fixed(lvd_sb *sb, double v, int d, int sign)
{
    char buf[64];
    snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", d, v);
    /* "-0.0" and "+-0" never print: a value that rounds to zero is zero */
    int zero = 1;
    for (const char *p = buf; *p; p++)
        if (*p >= '1' && *p <= '9')
            zero = 0;
    if (zero)
        snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", d, 0.0);
    lvd_sb_adds(sb, buf);
}

void ev_fmt_ts(lvd_sb *sb, double v)
{
    if (!isfinite(v)) {
        lvd_sb_adds(sb, "–");
        return;
    }
    fixed(sb, v, v >= 10000 ? 0 : v >= 100 ? 1 : 2, 0);
}

/* Percent with one decimal below 100 %, none above (+1736 %, not +1736.2 %);
 * only reached for ratios between 0.5 and 2 (ev_fmt_is_factor). */
static void pct_only(lvd_sb *sb, double ratio)
{
    double v = (ratio - 1.0) * 100.0;
    fixed(sb, v, fabs(v) >= 100 ? 0 : 1, 1);
}

int ev_fmt_is_factor(double ratio)
{
    return isfinite(ratio) && (ratio >= 2.0 || ratio <= 0.5);
}

/* A ratio as a factor: "×270" (>= 100), "×18.4" (>= 10), "×4.91" (>= 1),
 * two significant digits below 1 ("×0.50", "×0.054", "×0.0041"). */
static void factor_only(lvd_sb *sb, double ratio)
{
    lvd_sb_adds(sb, "×");
    if (ratio <= 0.0) {
        lvd_sb_adds(sb, "0");
        return;
    }
    int d = ratio >= 100 ? 0 : ratio >= 10 ? 1 : 2;
    if (ratio < 1.0)
        d = 1 - (int)floor(log10(ratio)); /* two significant digits */
    fixed(sb, ratio, d > 9 ? 9 : d, 0);
}

void ev_fmt_pct(lvd_sb *sb, double ratio)
{
    if (!isfinite(ratio)) {
        lvd_sb_adds(sb, "–");
        return;
    }
    if (ev_fmt_is_factor(ratio)) {
        factor_only(sb, ratio);
        return;
    }
    pct_only(sb, ratio);
    lvd_sb_adds(sb, " %");
}

void ev_fmt_delta(lvd_sb *sb, double ratio, double lo, double hi)
{
    ev_fmt_pct(sb, ratio);
    if (!isfinite(ratio) || !isfinite(lo) || !isfinite(hi))
        return;
    void (*bound)(lvd_sb *, double) = ev_fmt_is_factor(ratio) ? factor_only : pct_only;
    lvd_sb_adds(sb, " [");
    bound(sb, lo);
    lvd_sb_adds(sb, ", ");
    bound(sb, hi);
    lvd_sb_adds(sb, "]");
}

void ev_fmt_ts_ci(lvd_sb *sb, double median, double lo, double hi)
{
    ev_fmt_ts(sb, median);
    if (!isfinite(lo) || !isfinite(hi))
        return;
    lvd_sb_adds(sb, " [");
    ev_fmt_ts(sb, lo);
    lvd_sb_adds(sb, ", ");
    ev_fmt_ts(sb, hi);
    lvd_sb_adds(sb, "]");
}

void ev_fmt_p(lvd_sb *sb, double p)
{
    if (!isfinite(p))
        lvd_sb_adds(sb, "–");
    else if (p < 0.0001)
        lvd_sb_adds(sb, "< 0.0001");
    else
        lvd_sb_addf(sb, "%.4f", p);
}

void ev_md_cell(lvd_sb *sb, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '|': lvd_sb_adds(sb, "\\|"); break;
        case '\\': lvd_sb_adds(sb, "\\\\"); break;
        case '<': lvd_sb_adds(sb, "&lt;"); break;
        case '>': lvd_sb_adds(sb, "&gt;"); break;
        case '\n':
        case '\r':
        case '\t': lvd_sb_addc(sb, ' '); break;
        default: lvd_sb_addc(sb, *p);
        }
    }
}

void ev_xml(lvd_sb *sb, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': lvd_sb_adds(sb, "&amp;"); break;
        case '<': lvd_sb_adds(sb, "&lt;"); break;
        case '>': lvd_sb_adds(sb, "&gt;"); break;
        case '"': lvd_sb_adds(sb, "&quot;"); break;
        case '\'': lvd_sb_adds(sb, "&apos;"); break;
        default:
            /* control characters are not allowed in XML 1.0 */
            lvd_sb_addc(sb, (unsigned char)*p < 0x20 ? ' ' : *p);
        }
    }
}

void ev_anchor(lvd_sb *sb, const char *heading)
{
    for (const char *p = heading; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c) && c < 0x80)
            lvd_sb_addc(sb, (char)tolower(c));
        else if (c == '-' || c == '_')
            lvd_sb_addc(sb, (char)c);
        else if (c == ' ')
            lvd_sb_addc(sb, '-');
    }
}

char *ev_chart_name(const char *page, const char *sha256, const char *kind)
{
    const char *slash = strrchr(page, '/');
    const char *base = slash ? slash + 1 : page;
    size_t len = strlen(base);
    if (len > 3 && !strcmp(base + len - 3, ".md"))
        len -= 3;
    return lvd_xasprintf("%.*s-%.12s-%s.svg", (int)len, base, sha256, kind);
}

char *ev_page_dir(const char *page)
{
    const char *slash = strrchr(page, '/');
    if (!slash)
        return lvd_xstrdup(".");
    if (slash == page)
        return lvd_xstrdup("/");
    return lvd_xstrndup(page, (size_t)(slash - page));
}
