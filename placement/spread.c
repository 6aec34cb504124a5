/* spread.c: a full-residency split over several devices (rule in spread.h).
 * Priced with placement_price's full-residency cost; no I/O. */
#include "placement/spread.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ull * 1024ull)

static unsigned long long mib(uint64_t b)
{
    return (unsigned long long)((b + MIB / 2) / MIB);
}

/* The split f_i = free_i / sum and its -ts spelling. */
static void split(const int64_t *free_mib, size_t n, placement_spread_result *out)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)free_mib[i];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        out->frac[i] = (double)free_mib[i] / sum;
        used += (size_t)snprintf(out->tensor_split + used, sizeof out->tensor_split - used,
                                 "%s%.2f", i ? "/" : "", out->frac[i]);
    }
}

/* Prices the split at ubatch ub; 1 when every device holds its share. */
static int price_at(const placement_place_in *base, int ub, const int64_t *free_mib, size_t n,
                    placement_spread_result *out, lvd_err *err)
{
    placement_place_in in = *base;
    in.ubatch = ub;
    placement_result all;
    if (placement_price(&in, -1, 0, &all, err) != 0)
        return -1;
    uint64_t reserve = (uint64_t)in.reserve_mib * MIB;
    uint64_t excess = all.headroom_bytes > reserve ? all.headroom_bytes - reserve : 0;
    int fits = 1;
    for (size_t i = 0; i < n; i++) {
        double f = out->frac[i];
        out->weight_bytes[i] = (uint64_t)((double)all.weight_bytes * f + 0.5);
        out->kv_bytes[i] = (uint64_t)((double)all.kv_bytes * f + 0.5);
        out->headroom_bytes[i] = reserve + (uint64_t)((double)excess * f + 0.5);
        uint64_t need = out->weight_bytes[i] + out->kv_bytes[i] + out->headroom_bytes[i];
        out->margin_bytes[i] = free_mib[i] * (int64_t)MIB - (int64_t)need;
        fits = fits && out->margin_bytes[i] >= 0;
    }
    out->ubatch = all.ubatch;
    return fits;
}

static void describe(const int64_t *free_mib, size_t n, placement_spread_result *out)
{
    size_t used = (size_t)snprintf(out->reason, sizeof out->reason,
                                   out->fits ? "all blocks split %s across %zu devices at ubatch %d;"
                                             : "does not fit split %s across %zu devices at ubatch %d;",
                                   out->tensor_split, n, out->ubatch);
    for (size_t i = 0; i < n && used < sizeof out->reason; i++)
        used += (size_t)snprintf(out->reason + used, sizeof out->reason - used,
                                 " %s%llu of %lld MiB (weights %llu, KV %llu, headroom %llu)",
                                 i ? "+ " : "",
                                 mib(out->weight_bytes[i] + out->kv_bytes[i] + out->headroom_bytes[i]),
                                 (long long)free_mib[i], mib(out->weight_bytes[i]),
                                 mib(out->kv_bytes[i]), mib(out->headroom_bytes[i]));
}

int placement_spread(const placement_place_in *in, const int64_t *free_mib, size_t n,
                     placement_spread_result *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (n < 2 || n > PLACEMENT_SPREAD_MAX)
        return lvd_errf(err, "placement: a split needs 2 to %d devices, not %zu",
                        PLACEMENT_SPREAD_MAX, n);
    for (size_t i = 0; i < n; i++)
        if (free_mib[i] <= 0 || free_mib[i] > INT64_MAX / (int64_t)MIB)
            return lvd_errf(err, "placement: device %zu of the split has no known free memory", i);
    out->n = n;
    split(free_mib, n, out);
    int configured = in->ubatch > 0 ? in->ubatch : PLACEMENT_UBATCH_DEFAULT;
    const int ladder[] = {configured, 256, 128};
    int rc = 0;
    for (size_t k = 0; k < LVD_ARRAY_LEN(ladder) && rc == 0; k++) {
        if (k > 0 && ladder[k] >= configured)
            continue;
        rc = price_at(in, ladder[k], free_mib, n, out, err);
    }
    if (rc < 0)
        return -1;
    out->fits = rc;
    describe(free_mib, n, out);
    return 0;
}
