/* proc-helper.c: a tiny child for tests/common/test_proc.c, so that the process
 * runner is tested against real exits, signals, hangs, floods and stray
 * grandchildren without any shell. Not an engine (see fake-engine/).
 *
 * usage: proc-helper MODE [ARG]
 *   exit N          exit with status N
 *   signal N        die by signal N (its default action)
 *   sleep           sleep until killed
 *   ignore-term     ignore SIGTERM, print "ready", sleep until killed
 *   flood N         write N bytes 'o' to stdout and N bytes 'e' to stderr, exit 0
 *   env NAME...     print "NAME=VALUE" or "NAME unset" per name
 *   stdin           print how many bytes stdin held until EOF
 *   pwd             print the working directory
 *   grandchild      fork; both print nothing but the grandchild's pid and sleep
 *   linger          fork a sleeping grandchild (holding stdout), print its pid, exit 0
 *   escape          like linger, but the grandchild leaves the group (setsid)
 *   pidfile FILE    fork a sleeping grandchild, write "PID GRANDCHILD-PID" to FILE
 *                   (whole, by rename), sleep until killed
 *
 * Copied into a directory as llama-bench or llama-server, it replays an
 * engine's answer to one flag: `BIN --NAME` appends "NAME" to DIR/calls.log,
 * prints DIR/NAME.stdout and DIR/NAME.stderr (when present) and ends as
 * DIR/NAME.exit says: a status number (0 when absent), "hang" or "segv".
 * Used by test_probe and test_register; the full fake engine is fake-engine/. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void sleep_forever(void);

/* DIR/NAME.SUFFIX (malloc'd). */
static char *path_of(const char *dir, const char *name, const char *suffix)
{
    char *p;
    if (asprintf(&p, "%s/%s%s%s", dir, name, suffix ? "." : "", suffix ? suffix : "") < 0)
        exit(8);
    return p;
}

/* Copies DIR/NAME.SUFFIX to fd when it exists. */
static void replay_file(const char *dir, const char *name, const char *suffix, int fd)
{
    char *path = path_of(dir, name, suffix);
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f)
        return;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (write(fd, buf, n) != (ssize_t)n)
            break;
    fclose(f);
}

static int replay(const char *argv0, const char *flag)
{
    char *dir = strdup(argv0);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    const char *name = flag + 2;
    char *path = path_of(dir, "calls.log", NULL);
    FILE *log = fopen(path, "a");
    free(path);
    if (log) {
        fprintf(log, "%s\n", name);
        fclose(log);
    }
    replay_file(dir, name, "stdout", 1);
    replay_file(dir, name, "stderr", 2);
    char how[32] = "0";
    path = path_of(dir, name, "exit");
    FILE *f = fopen(path, "r");
    free(path);
    free(dir);
    if (f) {
        if (!fgets(how, sizeof how, f))
            how[0] = '\0';
        fclose(f);
    }
    if (!strncmp(how, "hang", 4))
        sleep_forever();
    if (!strncmp(how, "segv", 4)) {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    return atoi(how);
}

static void sleep_forever(void)
{
    for (;;)
        pause();
}

static void write_n(int fd, char c, long n)
{
    char buf[8192];
    memset(buf, c, sizeof buf);
    while (n > 0) {
        size_t chunk = n < (long)sizeof buf ? (size_t)n : sizeof buf;
        ssize_t w = write(fd, buf, chunk);
        if (w <= 0)
            exit(9);
        n -= w;
    }
}

/* Forks a grandchild that sleeps forever; returns its pid in the parent. */
static pid_t fork_sleeper(int leave_group)
{
    pid_t pid = fork();
    if (pid < 0)
        exit(8);
    if (pid == 0) {
        if (leave_group)
            setsid();
        sleep_forever();
    }
    printf("%ld\n", (long)pid);
    fflush(stdout);
    return pid;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *mode = argv[1];
    if (!strncmp(mode, "--", 2))
        return replay(argv[0], mode);
    long arg = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    if (!strcmp(mode, "exit"))
        return (int)arg;
    if (!strcmp(mode, "signal")) {
        signal((int)arg, SIG_DFL);
        raise((int)arg);
        return 99;
    }
    if (!strcmp(mode, "sleep"))
        sleep_forever();
    if (!strcmp(mode, "ignore-term")) {
        signal(SIGTERM, SIG_IGN);
        printf("ready\n");
        fflush(stdout);
        sleep_forever();
    }
    if (!strcmp(mode, "flood")) {
        write_n(1, 'o', arg);
        write_n(2, 'e', arg);
        return 0;
    }
    if (!strcmp(mode, "env")) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            if (v)
                printf("%s=%s\n", argv[i], v);
            else
                printf("%s unset\n", argv[i]);
        }
        return 0;
    }
    if (!strcmp(mode, "stdin")) {
        char buf[4096];
        long total = 0;
        ssize_t n;
        while ((n = read(0, buf, sizeof buf)) > 0)
            total += n;
        printf("%ld\n", n < 0 ? -1 : total);
        return 0;
    }
    if (!strcmp(mode, "pwd")) {
        char buf[4096];
        if (!getcwd(buf, sizeof buf))
            return 1;
        printf("%s\n", buf);
        return 0;
    }
    if (!strcmp(mode, "grandchild")) {
        fork_sleeper(0);
        sleep_forever();
    }
    if (!strcmp(mode, "pidfile") && argc > 2) {
        pid_t gc = fork_sleeper(0);
        char part[4096];
        snprintf(part, sizeof part, "%s.part", argv[2]);
        FILE *f = fopen(part, "w");
        if (!f || fprintf(f, "%ld %ld\n", (long)getpid(), (long)gc) < 0 || fclose(f) != 0 ||
            rename(part, argv[2]) != 0)
            return 7;
        sleep_forever();
    }
    if (!strcmp(mode, "linger") || !strcmp(mode, "escape")) {
        fork_sleeper(!strcmp(mode, "escape"));
        return 0;
    }
    return 2;
}
