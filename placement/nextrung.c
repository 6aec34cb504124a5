/* nextrung.c: see nextrung.h. */
#include "placement/nextrung.h"

#include <stdio.h>

#define MIB (1024ll * 1024ll)

int placement_next_rung(const placement_place_in *in, int64_t failed_bytes, placement_result *out,
                        lvd_err *err)
{
    placement_place_in less = *in;
    /* the whole MiB below failed_bytes: every candidate that fits needs less */
    less.free_mib = failed_bytes > MIB ? (failed_bytes - 1) / MIB : 0;
    if (placement_compute(&less, out, err) != 0)
        return -1;
    if (out->rung == PLACEMENT_RUNG_CPU_ONLY || out->rung == PLACEMENT_RUNG_NOTHING_FITS)
        return 0;
    return (int64_t)out->bytes < failed_bytes ? 1 : 0;
}
