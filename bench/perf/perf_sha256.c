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

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define REPS 3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes mib MiB of pseudo-random bytes (incompressible, not all zeros). */
static int write_file(const char *path, long mib)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t n = (size_t)1 << 20;
    uint64_t *buf = lvd_xmalloc(n);
    uint64_t x = 0x9e3779b97f4a7c15ull;
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
    double t0 = now_s();
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
    *secs = now_s() - t0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `openssl speed -evp sha256 -bytes 16384`: the figure in bytes/s, or 0. */
static double openssl_speed(void)
{
    char *argv[] = {"openssl", "speed", "-evp", "sha256", "-bytes", "16384", "-seconds", "3", NULL};
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
    size_t n = 16384;
    unsigned char *buf = lvd_xcalloc(1, n);
    double best = 0;
    for (int rep = 0; rep < REPS; rep++) {
        lvd_sha256 *h = lvd_sha256_new();
        double t0 = now_s();
        size_t iters = 40000;
        for (size_t i = 0; i < iters; i++)
            lvd_sha256_update(h, buf, n);
        double dt = now_s() - t0;
        char hex[LVD_SHA256_HEX_LEN + 1];
        lvd_sha256_final(h, hex);
        if ((double)(iters * n) / dt > best)
            best = (double)(iters * n) / dt;
    }
    free(buf);
    return best;
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 1024;
    const char *dir = argc > 2 ? argv[2] : getenv("TMPDIR");
    if (mib <= 0) {
        fprintf(stderr, "usage: perf_sha256 [MIB] [DIR]\n");
        return 2;
    }
    char *path = lvd_xasprintf("%s/perf-sha256-%d.bin", dir && *dir ? dir : "/tmp", (int)getpid());
    if (write_file(path, mib) != 0) {
        fprintf(stderr, "perf_sha256: cannot write %s\n", path);
        free(path);
        return 1;
    }
    double bytes = (double)mib * 1048576.0;
    printf("file: %s, %ld MiB (page cache warm: written just now)\n", path, mib);

    char ours_hex[LVD_SHA256_HEX_LEN + 1] = "";
    double ours = 0;
    for (int rep = 0; rep < REPS; rep++) {
        lvd_err err;
        uint64_t n = 0;
        double t0 = now_s();
        if (lvd_sha256_file(path, ours_hex, &n, &err) != 0) {
            fprintf(stderr, "perf_sha256: %s\n", err.msg);
            unlink(path);
            free(path);
            return 1;
        }
        double dt = now_s() - t0;
        if (bytes / dt > ours)
            ours = bytes / dt;
    }

    double sum = 0;
    char out[256] = "";
    for (int rep = 0; rep < REPS; rep++) {
        char *sargv[] = {"sha256sum", path, NULL};
        double dt;
        if (run_capture(sargv, out, sizeof out, &dt) != 0) {
            sum = 0;
            break;
        }
        if (bytes / dt > sum)
            sum = bytes / dt;
    }
    int same = sum > 0 && strncmp(out, ours_hex, LVD_SHA256_HEX_LEN) == 0;
    double ssl = openssl_speed();
    double mem = evp_memory_speed();
    unlink(path);
    free(path);

    printf("lvd_sha256_file        %8.1f MB/s  (best of %d)\n", ours / 1e6, REPS);
    printf("openssl speed (16 KiB) %8.1f MB/s%s\n", ssl / 1e6, ssl > 0 ? "" : "  (openssl not run)");
    printf("EVP in memory (16 KiB) %8.1f MB/s\n", mem / 1e6);
    printf("sha256sum              %8.1f MB/s%s\n", sum / 1e6,
           sum > 0 ? (same ? "  (same digest)" : "  (DIGEST DIFFERS)") : "  (not run)");
    if (ssl > 0)
        printf("ratio ours/openssl     %8.2f  (goal >= 0.90)\n", ours / ssl);
    printf("ratio ours/evp-memory  %8.2f\n", ours / mem);
    if (sum > 0)
        printf("ratio ours/sha256sum   %8.2f\n", ours / sum);
    return sum > 0 && !same ? 1 : 0;
}
