/* explain.c: the one list of a selection's explain lines (see explain.h).
 * Not for what the lines say. */
#include "select/explain.h"

#include "common/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sel_say(sel_explain *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lvd_strv_vpushf(&x->v, &x->n, fmt, ap);
    va_end(ap);
}

void sel_explain_free(sel_explain *x)
{
    for (size_t i = 0; i < x->n; i++)
        free(x->v[i]);
    free(x->v);
    memset(x, 0, sizeof *x);
}
