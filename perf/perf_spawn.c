/* perf_spawn.c: the wall and CPU milliseconds of short commands, run in turn:
 * each round starts every command once, in the order given, so that a
 * command and the floor it is read against (a process start: /bin/true)
 * share the machine's speed of that moment (a shared host's speed wanders
 * by 2x within minutes). Each child is started with posix_spawn in its own
 * process group, stdin, stdout and stderr on /dev/null, and waited for with
 * wait4 (its user + system time); nothing is read from it, so the figure is
 * the process's own cost and not a harness's pipes (Python's subprocess adds
 * about 0.4 ms to a process start here). A child past the timeout is killed
 * with its group and counted as failed.
 *
 *   perf_spawn [-n ROUNDS] [-t TIMEOUT_MS] [-k OK_CODES] -- [NAME=VALUE...] CMD ARGS... [-- ...]...
 *
 * A command's leading NAME=VALUE words are set in its environment over
 * perf_spawn's own (as env(1) would, without starting env). CMD is a path:
 * no PATH search.
 *
 * Prints one JSON object per command, in the order given: {"env":[its
 * NAME=VALUE words], "argv":[...],
 * "rounds":N, "wall_ms":{"median","p25","p75"}, "cpu_ms":median,
 * "failed":runs that exited outside OK_CODES (default "0")}. Used by
 * perf/year-store.py for its millisecond rows; not a test.
 * The children are started here and not through common/proc.c: a benchmark
 * must not depend on the module it could be used to measure. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_COMMANDS 16

typedef struct command {
    char **argv;
    char **envp;    /* its NAME=VALUE words, then environ without the names they set */
    size_t n_env;   /* how many of envp are its own words */
    double *wall, *cpu;
    int failed;
} command;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv)
{
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q quantile of sorted v[0..n), nearest rank. */
static double quantile(const double *v, int n, double q)
{
    return v[(int)(q * (n - 1) + 0.5)];
}

static int code_ok(const char *codes, int code)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", codes);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (atoi(t) == code)
            return 1;
    return 0;
}

/* Waits for pid until deadline (ms on now_ms's clock); kills its group when
 * it passes. SIGCHLD is blocked, so sigtimedwait wakes on the child's end. */
static int wait_child(pid_t pid, double deadline, int *status, struct rusage *ru)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        pid_t r = wait4(pid, status, WNOHANG, ru);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        double left = deadline - now_ms();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
                ;
            return 1;
        }
        long long ns = (long long)(left * 1e6);
        struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
        sigtimedwait(&chld, NULL, &ts);
    }
}

/* One run of c: its wall and CPU ms into round r; 0, or -1 when it could not start. */
static int run_once(command *c, int r, int timeout_ms, const char *ok_codes)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none;
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    for (int fd = 0; fd < 3; fd++)
        posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &none);
    double t0 = now_ms();
    pid_t pid;
    int rc = posix_spawn(&pid, c->argv[0], &fa, &at, c->argv, c->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        fprintf(stderr, "perf_spawn: %s: %s\n", c->argv[0], strerror(rc));
        return -1;
    }
    int status = 0;
    struct rusage ru = {0};
    int late = wait_child(pid, t0 + timeout_ms, &status, &ru);
    c->wall[r] = now_ms() - t0;
    c->cpu[r] = tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
    if (late != 0 || !WIFEXITED(status) || !code_ok(ok_codes, WEXITSTATUS(status)))
        c->failed++;
    return 0;
}

/* Splits c->argv's leading NAME=VALUE words into c->envp; 0, or -1 when no command follows them. */
static int take_env(command *c)
{
    size_t n = 0, ne = 0;
    while (c->argv[n] && strchr(c->argv[n], '=') && c->argv[n][0] != '=' && c->argv[n][0] != '/')
        n++;
    while (environ[ne])
        ne++;
    c->envp = calloc(n + ne + 1, sizeof *c->envp);
    if (!c->envp || !c->argv[n])
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        c->envp[k++] = c->argv[i];
    for (size_t j = 0; j < ne; j++) {
        size_t len = strcspn(environ[j], "=");
        int set = 0;
        for (size_t i = 0; i < n && !set; i++)
            set = !strncmp(c->argv[i], environ[j], len) && c->argv[i][len] == '=';
        if (!set)
            c->envp[k++] = environ[j];
    }
    c->n_env = n;
    c->argv += n;
    return 0;
}

static void print_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

static void report(command *c, int rounds)
{
    printf("{\"env\":[");
    for (size_t i = 0; i < c->n_env; i++) {
        if (i)
            putchar(',');
        print_json_string(c->envp[i]);
    }
    printf("],\"argv\":[");
    for (int i = 0; c->argv[i]; i++) {
        if (i)
            putchar(',');
        print_json_string(c->argv[i]);
    }
    qsort(c->wall, (size_t)rounds, sizeof *c->wall, cmp_double);
    qsort(c->cpu, (size_t)rounds, sizeof *c->cpu, cmp_double);
    double p25 = quantile(c->wall, rounds, 0.25), med = quantile(c->wall, rounds, 0.5),
           p75 = quantile(c->wall, rounds, 0.75);
    printf("],\"rounds\":%d,\"wall_ms\":{\"median\":%.3f,\"p25\":%.3f,\"p75\":%.3f},\"cpu_ms\":%.3f,\"failed\":%d}\n",
           rounds, med, p25, p75, quantile(c->cpu, rounds, 0.5), c->failed);
}

static int usage(void)
{
    fprintf(stderr, "usage: perf_spawn [-n ROUNDS] [-t TIMEOUT_MS] [-k OK_CODES] -- [NAME=VALUE...] CMD ARGS..."
                    " [-- ...]...\n"
                    "example: perf_spawn -n 31 -- /bin/true -- LVD_STORE=year.db build/bin/lvd select --model m.gguf\n");
    return 2;
}

/* Every round of every command, then the report: 0, 1 (a command could not
 * start, or no memory) or 2 (usage). The caller frees what cmds hold. */
static int run_all(command *cmds, int n, int rounds, int timeout_ms, const char *ok_codes)
{
    for (int k = 0; k < n; k++) {
        if (take_env(&cmds[k]) != 0)
            return usage();
        cmds[k].wall = calloc((size_t)rounds, sizeof(double));
        cmds[k].cpu = calloc((size_t)rounds, sizeof(double));
        if (!cmds[k].wall || !cmds[k].cpu)
            return 1;
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < n; k++)
            if (run_once(&cmds[k], r, timeout_ms, ok_codes) != 0)
                return 1;
    for (int k = 0; k < n; k++)
        report(&cmds[k], rounds);
    return 0;
}


int main(int argc, char **argv)
{
    int rounds = 31, timeout_ms = 60000, i = 1;
    const char *ok_codes = "0";
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (i + 1 >= argc)
            return usage();
        if (!strcmp(argv[i], "-n"))
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t"))
            timeout_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k"))
            ok_codes = argv[++i];
        else
            return usage();
    }
    if (rounds < 1 || timeout_ms < 1 || i >= argc)
        return usage();
    command cmds[MAX_COMMANDS];
    int n = 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") != 0)
            continue;
        argv[i] = NULL; /* ends the previous command's argv */
        if (i + 1 >= argc || !strcmp(argv[i + 1], "--") || n == MAX_COMMANDS)
            return usage();
        cmds[n++] = (command){.argv = argv + i + 1};
    }
    int rc = run_all(cmds, n, rounds, timeout_ms, ok_codes);
    for (int k = 0; k < n; k++) {
        free(cmds[k].wall);
        free(cmds[k].cpu);
        free(cmds[k].envp);
    }
    return rc;
}
