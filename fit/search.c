/* search.c: the bisection of lvd fit (see search.h). Not for loads. */
#include "fit/search.h"

#include <string.h>

/* 1 while the bracket [lo, hi) is wider than the precision. */
static int bracket_open(uint32_t lo, uint32_t hi)
{
    return hi - lo > 1 && (uint64_t)(hi - lo) * 100 > (uint64_t)lo * FIT_PRECISION_PCT;
}

static int try_load(fit_load_fn load, void *arg, uint32_t n, int *fits, fit_search_out *out, lvd_err *err)
{
    out->probes++;
    return load(arg, n, fits, err);
}

int fit_search(uint32_t start, uint32_t top, fit_load_fn load, void *arg, fit_search_out *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (top < FIT_MIN_CTX)
        top = FIT_MIN_CTX;
    start = start < FIT_MIN_CTX ? FIT_MIN_CTX : start > top ? top : start;
    uint32_t lo = 0, hi = 0;
    int fits;
    if (try_load(load, arg, start, &fits, out, err))
        return -1;
    if (fits) {
        lo = start;
        if (start < top && try_load(load, arg, top, &fits, out, err))
            return -1;
        if (start == top || fits) {
            out->ceiling = top;
            out->capped = 1;
            return 0;
        }
        hi = top;
    } else {
        hi = start;
        if (start == FIT_MIN_CTX) {
            out->above = start;
            return 0;
        }
        if (try_load(load, arg, FIT_MIN_CTX, &fits, out, err))
            return -1;
        if (!fits) {
            out->above = FIT_MIN_CTX;
            return 0;
        }
        lo = FIT_MIN_CTX;
    }
    while (bracket_open(lo, hi)) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (try_load(load, arg, mid, &fits, out, err))
            return -1;
        if (fits)
            lo = mid;
        else
            hi = mid;
    }
    out->ceiling = lo;
    out->above = hi;
    return 0;
}
