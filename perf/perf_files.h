/* perf_files.h: what the hashing benchmarks (perf_sha256.c, perf_shards.c)
 * share: a monotonic clock and files of incompressible bytes to hash. Header
 * only: each perf/perf_*.c is one executable. Not for the library. */
#ifndef LVD_PERF_FILES_H
#define LVD_PERF_FILES_H

#include "common/util.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline double perf_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes mib MiB of pseudo-random bytes (incompressible, not all zeros; seed
 * picks which). 0 or -1. */
static inline int perf_write_random(const char *path, long mib, uint64_t seed)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t n = (size_t)1 << 20;
    uint64_t *buf = lvd_xmalloc(n);
    uint64_t x = 0x9e3779b97f4a7c15ull ^ seed;
    for (long m = 0; m < mib; m++) {
        for (size_t i = 0; i < n / 8; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = x;
        }
        if (write(fd, buf, n) != (ssize_t)n) {
            free(buf);
            close(fd);
            return -1;
        }
    }
    free(buf);
    return close(fd);
}

#endif
