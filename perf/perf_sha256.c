/* perf_sha256.c: how fast lvd_sha256_file hashes a file, against the CPU's
 * SHA-256 limit (`openssl speed -evp sha256 -bytes 16384`), OpenSSL EVP over an
 * in-memory buffer, and `sha256sum` over the same file. Prints MB/s and the
 * ratios; the goal is ours >= 0.9 x openssl speed. Not a pass/fail test.
 *
 * Usage: perf_sha256 [MIB] [DIR]   (default 1024 MiB in $TMPDIR or /tmp)
 *
 * The reference tools are started with posix_spawnp here only: a benchmark
 * must not depend on the module it could be used to measure. */
#include "common/sha256.h"
#include "common/util.h"
#include "perf/perf_files.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define ROUNDS 5

/* Runs argv with stdout captured into out (at most cap bytes); exit status or -1. */
static int run_capture(char *const argv[], char *out, size_t cap, double *secs)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = perf_now_s();
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (e != 0) {
        close(p[0]);
        return -1;
    }
    size_t len = 0;
    ssize_t k;
    char sink[4096];
    while ((k = read(p[0], len + 1 < cap ? out + len : sink,
                     len + 1 < cap ? cap - 1 - len : sizeof sink)) > 0)
        if (len + 1 < cap)
            len += (size_t)k;
    out[len] = '\0';
    close(p[0]);
    int status;
    waitpid(pid, &status, 0);
    *secs = perf_now_s() - t0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `openssl speed -evp sha256 -bytes 16384`: the figure in bytes/s, or 0. By
 * default openssl times its own CPU time, which a loaded machine does not
 * slow; with elapsed it times the wall clock, as we time ourselves. */
static double openssl_speed(int elapsed)
{
    char *argv[] = {"openssl", "speed", "-evp", "sha256", "-bytes", "16384", "-seconds", "2",
                    elapsed ? "-elapsed" : NULL, NULL};
    char out[8192];
    double secs;
    if (run_capture(argv, out, sizeof out, &secs) != 0)
        return 0;
    /* the last line reads "sha256   1761070.37k" (1000s of bytes per second) */
    const char *line = strstr(out, "\nsha256");
    double k = 0;
    if (!line || sscanf(line + 1, "sha256 %lfk", &k) != 1)
        return 0;
    return k * 1000.0;
}

/* OpenSSL EVP over one 16 KiB buffer in memory, through lvd_sha256_update. */
static double evp_memory_speed(void)
{
    size_t n = 16384, iters = 40000;
    unsigned char *buf = lvd_xcalloc(1, n);
    lvd_sha256 *h = lvd_sha256_new();
    double t0 = perf_now_s();
    for (size_t i = 0; i < iters; i++)
        lvd_sha256_update(h, buf, n);
    double dt = perf_now_s() - t0;
    char hex[LVD_SHA256_HEX_LEN + 1];
    lvd_sha256_final(h, hex);
    free(buf);
    return (double)(iters * n) / dt;
}

static double ours_speed(const char *path, double bytes, char hex[LVD_SHA256_HEX_LEN + 1])
{
    lvd_err err;
    double t0 = perf_now_s();
    if (lvd_sha256_file(path, hex, NULL, &err) != 0) {
        fprintf(stderr, "perf_sha256: %s\n", err.msg);
        return 0;
    }
    return bytes / (perf_now_s() - t0);
}

static double sha256sum_speed(const char *path, double bytes, char *out, size_t cap)
{
    char *argv[] = {"sha256sum", (char *)path, NULL};
    double dt;
    if (run_capture(argv, out, cap, &dt) != 0)
        return 0;
    return bytes / dt;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, lvd_cmp_double);
    return v[n / 2];
}

static double max_of(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* Each round measures everything back to back, so a ratio compares figures
 * taken under the same load; the medians of the per-round ratios are printed. */
int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 1024;
    const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR");
    if (mib <= 0) {
        fprintf(stderr, "usage: perf_sha256 [MIB] [DIR]\n");
        return 2;
    }
    char *path = lvd_xasprintf("%s/perf-sha256-%d.bin", dir && *dir ? dir : "/tmp", (int)getpid());
    if (perf_write_random(path, mib, 0) != 0) {
        fprintf(stderr, "perf_sha256: cannot write %s\n", path);
        free(path);
        return 1;
    }
    double bytes = (double)mib * 1048576.0;
    printf("file: %s, %ld MiB (page cache warm: written just now), %d rounds\n", path, mib,
           ROUNDS);

    double ssl_cpu = openssl_speed(0);
    double ours[ROUNDS], ssl[ROUNDS], mem[ROUNDS], sum[ROUNDS];
    double r_ssl[ROUNDS], r_mem[ROUNDS], r_sum[ROUNDS];
    char ours_hex[LVD_SHA256_HEX_LEN + 1] = "", sum_out[256] = "";
    int have_ssl = 1, have_sum = 1, rc = 0;
    for (int i = 0; i < ROUNDS; i++) {
        ours[i] = ours_speed(path, bytes, ours_hex);
        if (ours[i] == 0) {
            rc = 1;
            goto out;
        }
        ssl[i] = openssl_speed(1);
        mem[i] = evp_memory_speed();
        sum[i] = sha256sum_speed(path, bytes, sum_out, sizeof sum_out);
        have_ssl &= ssl[i] > 0;
        have_sum &= sum[i] > 0;
        r_ssl[i] = ssl[i] > 0 ? ours[i] / ssl[i] : 0;
        r_mem[i] = ours[i] / mem[i];
        r_sum[i] = sum[i] > 0 ? ours[i] / sum[i] : 0;
        printf("round %d: ours %.1f  openssl-elapsed %.1f  evp-memory %.1f  sha256sum %.1f MB/s\n", i + 1,
               ours[i] / 1e6, ssl[i] / 1e6, mem[i] / 1e6, sum[i] / 1e6);
    }
    int same = have_sum && strncmp(sum_out, ours_hex, LVD_SHA256_HEX_LEN) == 0;
    printf("lvd_sha256_file        %8.1f MB/s  (best round)\n", max_of(ours, ROUNDS) / 1e6);
    printf("openssl speed (16 KiB) %8.1f MB/s  (its default: CPU time)\n", ssl_cpu / 1e6);
    printf("openssl speed -elapsed %8.1f MB/s%s\n", max_of(ssl, ROUNDS) / 1e6,
           have_ssl ? "  (best round, wall clock)" : "  (openssl not run)");
    printf("EVP in memory (16 KiB) %8.1f MB/s\n", max_of(mem, ROUNDS) / 1e6);
    printf("sha256sum              %8.1f MB/s%s\n", max_of(sum, ROUNDS) / 1e6,
           have_sum ? (same ? "  (same digest)" : "  (DIGEST DIFFERS)") : "  (not run)");
    if (have_ssl)
        printf("ratio ours/openssl     %8.2f  (median of rounds, wall clock; goal >= 0.90)\n",
               median(r_ssl, ROUNDS));
    printf("ratio ours/evp-memory  %8.2f  (median of rounds)\n", median(r_mem, ROUNDS));
    if (have_sum)
        printf("ratio ours/sha256sum   %8.2f  (median of rounds)\n", median(r_sum, ROUNDS));
    rc = have_sum && !same;
out:
    unlink(path);
    free(path);
    return rc;
}
