/* nextrung.h: the rung after a load that failed for memory. When
 * llama.cpp runs out of device memory loading an arm that placement priced at
 * B bytes, the device holds less than B: the next rung is what the ladder
 * (placement.h) chooses for a device with one MiB less than B free, i.e. the
 * next candidate down the ladder that needs strictly less. Pure arithmetic.
 * Not for running it (bench/rung.h adds the arm to the session). */
#ifndef LVD_PLACEMENT_NEXTRUNG_H
#define LVD_PLACEMENT_NEXTRUNG_H

#include "placement/placement.h"

/* in as the failed arm was priced (shape, ctx, cache types, ubatch; free_mib
 * ignored); failed_bytes: its predicted device bytes. 1 with *out the next
 * rung when one below failed_bytes still puts a block on the device; 0 when
 * none is left (the next would be -ngl 0: the device is no use, out says
 * why); -1 with err as placement_compute. */
int placement_next_rung(const placement_place_in *in, int64_t failed_bytes, placement_result *out,
                        lvd_err *err);

#endif
