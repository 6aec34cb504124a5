/* perf_shards.c: how much faster a split model's shards are hashed in
 * parallel (lvd_sha256_files on as many threads as cores, as store_identify
 * hashes them) than one after another (the same, on one thread), on shards
 * generated in a temporary directory. Prints MB/s of both and the speed-up,
 * the median of rounds. Not a pass/fail test.
 *
 * Usage: perf_shards [SHARDS] [MIB] [DIR]   (default 4 x 64 MiB in $TMPDIR or /tmp) */
#include "common/sha256.h"
#include "common/util.h"
#include "perf/perf_files.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5

/* Seconds to hash every shard on at most threads threads, or -1. */
static double hash_all(char **paths, size_t n, unsigned threads, char (*hex)[LVD_SHA256_HEX_LEN + 1])
{
    lvd_err err;
    double t0 = perf_now_s();
    if (lvd_sha256_files(paths, n, threads, hex, NULL, &err) != 0) {
        fprintf(stderr, "perf_shards: %s\n", err.msg);
        return -1;
    }
    return perf_now_s() - t0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 4, mib = argc > 2 ? atol(argv[2]) : 64;
    const char *dir = argc > 3 ? argv[3] : getenv("TMPDIR");
    if (n <= 0 || n > 64 || mib <= 0) {
        fprintf(stderr, "usage: perf_shards [SHARDS 1-64] [MIB] [DIR]\n");
        return 2;
    }
    char **paths = lvd_xcalloc((size_t)n, sizeof *paths);
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        paths[i] = lvd_xasprintf("%s/perf-shards-%d-%05ld-of-%05ld.gguf", dir && *dir ? dir : "/tmp",
                                 (int)getpid(), i + 1, n);
        if (perf_write_random(paths[i], mib, (uint64_t)i) != 0) {
            fprintf(stderr, "perf_shards: cannot write %s\n", paths[i]);
            rc = 1;
        }
    }
    char(*seq)[LVD_SHA256_HEX_LEN + 1] = lvd_xcalloc((size_t)n, sizeof *seq);
    char(*par)[LVD_SHA256_HEX_LEN + 1] = lvd_xcalloc((size_t)n, sizeof *par);
    double bytes = (double)n * (double)mib * 1048576.0, ratio[ROUNDS];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (rc == 0)
        printf("%ld shards x %ld MiB (page cache warm: written just now), %ld cores, %d rounds\n", n, mib,
               cores, ROUNDS);
    for (int r = 0; r < ROUNDS && rc == 0; r++) {
        double ts = hash_all(paths, (size_t)n, 1, seq), tp = hash_all(paths, (size_t)n, 0, par);
        if (ts < 0 || tp < 0 || memcmp(seq, par, (size_t)n * sizeof *seq) != 0) {
            fprintf(stderr, "perf_shards: hashing failed or the digests differ\n");
            rc = 1;
            break;
        }
        ratio[r] = ts / tp;
        printf("round %d: one after another %.1f MB/s, parallel %.1f MB/s, speed-up %.2fx\n", r + 1,
               bytes / ts / 1e6, bytes / tp / 1e6, ratio[r]);
    }
    if (rc == 0) {
        qsort(ratio, ROUNDS, sizeof *ratio, lvd_cmp_double);
        printf("speed-up parallel / one after another: %.2fx (median of %d rounds, %ld cores)\n",
               ratio[ROUNDS / 2], ROUNDS, cores);
    }
    for (long i = 0; i < n; i++) {
        if (paths[i])
            unlink(paths[i]);
        free(paths[i]);
    }
    free(paths);
    free(seq);
    free(par);
    return rc;
}
