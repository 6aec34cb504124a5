/* proc.c: the one way llama-verdict runs another program (see proc.h).
 * posix_spawn from an argv (no shell, no PATH search) into a new process group,
 * stdin from /dev/null, stdout and stderr captured through pipes read with
 * poll(). On timeout the whole group gets SIGTERM, then SIGKILL after a short
 * grace. When the leader exits, anything it left behind in its group is killed
 * too, and the leader is always reaped. Not for interactive or long-lived
 * children, and not for feeding a child's stdin.
 *
 * The group dies with us (the guard, see guard_start): the group is led by a
 * forked guard process that holds the read end of a pipe only we write to.
 * However we end (SIGKILL, the OOM killer included), the kernel closes the
 * write end; the guard reads end-of-file and SIGKILLs the whole group, itself
 * included. An lvd tool run this way guards its own children the same way, so
 * a chain (lvd-nightly > lvd-bench > llama-bench) unwinds link by link.
 *
 * A long-lived child (proc_start) is spawned the same way into a guarded
 * group, its output written to a log file instead of pipes; proc_stop
 * signals the group (SIGTERM, then SIGKILL) and reaps it.
 *
 * Policies (constants below):
 * - KILL_GRACE_MS: time between SIGTERM and SIGKILL to the group on timeout.
 * - DRAIN_GRACE_MS: after the leader has exited and its group was killed, how
 *   long we keep reading pipes that a process which left the group (setsid)
 *   may still hold open; then the pipes are closed and we return.
 * - An env entry without '=' ("NAME") removes NAME from the child's
 *   environment; "NAME=VALUE" sets or replaces it. */
#include "common/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_CAPTURE ((size_t)4 << 20)
#define KILL_GRACE_MS 1000
#define DRAIN_GRACE_MS 500
#define TICK_MS 20 /* leader polling period when pidfd_open is unavailable */

/* A pipe read end with its capture buffer. */
typedef struct stream {
    int fd;          /* -1 once closed */
    lvd_sb *sb;
    int *truncated;
    size_t cap;
    void (*on_data)(const char *buf, size_t n, void *ctx);
    void *ctx;
} stream;

/* Moves an fd to >= 3 (so dup2 onto 0..2 in the child never aliases it), CLOEXEC. */
static int high_fd(int fd)
{
    if (fd > 2)
        return fd;
    int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int e = errno;
    close(fd);
    errno = e;
    return nfd;
}

static int make_pipe(int p[2])
{
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    p[0] = high_fd(p[0]);
    p[1] = high_fd(p[1]);
    if (p[0] < 0 || p[1] < 0) {
        if (p[0] >= 0)
            close(p[0]);
        if (p[1] >= 0)
            close(p[1]);
        return -1;
    }
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static size_t name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

static int overlaid(const char *entry, const char *const *env)
{
    size_t n = name_len(entry);
    for (size_t i = 0; env[i]; i++)
        if (name_len(env[i]) == n && !strncmp(env[i], entry, n))
            return 1;
    return 0;
}

/* The child's environment: environ minus the names env mentions, plus env's
 * "K=V" entries. The array is malloc'd; its strings are borrowed. */
static char **build_env(const char *const *env)
{
    size_t n = 0, m = 0;
    while (environ && environ[n])
        n++;
    while (env[m])
        m++;
    char **out = lvd_xcalloc(n + m + 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!overlaid(environ[i], env))
            out[k++] = environ[i];
    for (size_t i = 0; i < m; i++)
        if (strchr(env[i], '='))
            out[k++] = (char *)env[i];
    out[k] = NULL;
    return out;
}

/* --- the guard ----------------------------------------------------------- */

/* Closes every fd from lo up (the guard must hold no pipe, lock or store). */
static void close_from(int lo)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0) == 0)
        return;
#endif
    struct rlimit rl;
    int hi = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
    for (int fd = lo; fd < hi; fd++)
        close(fd);
}

/* The guard's life, in the forked child (async-signal-safe calls only): lead
 * a new group, wait for end-of-file on rd (our death, or guard_stop), kill the
 * group. Terminal and timeout signals are ignored: only SIGKILL ends it early. */
static void __attribute__((noreturn)) guard_main(int rd)
{
    setpgid(0, 0);
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &ign, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(rd, 0) < 0)
        _exit(1);
    close_from(1);
    char c;
    while (read(0, &c, 1) < 0 && errno == EINTR)
        ;
    kill(0, SIGKILL);
    _exit(0);
}

/* Forks the guard; it leads the group the child will join. *wr is the pipe
 * end whose closing (by guard_stop, or by our death) fires it. Returns its
 * pid, or -1 when it could not be started (the child then leads its own group,
 * unguarded). */
static pid_t guard_start(int *wr)
{
    int p[2];
    if (make_pipe(p) != 0)
        return -1;
    pid_t g = fork();
    if (g == 0)
        guard_main(p[0]);
    close(p[0]);
    if (g < 0) {
        close(p[1]);
        return -1;
    }
    setpgid(g, g); /* also here: the group must exist before the child joins it */
    *wr = p[1];
    return g;
}

/* Ends the guard (it kills what is left of the group, itself included) and
 * reaps it. */
static void guard_stop(pid_t g, int *wr)
{
    if (g <= 0)
        return;
    kill(-g, SIGKILL);
    close_fd(wr);
    while (waitpid(g, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Spawns the child with out_w/err_w as its stdout/stderr. Returns 0 or an errno. */
static int spawn(const proc_spec *spec, int out_w, int err_w, pid_t pgid, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc)
        return rc;
    rc = posix_spawnattr_init(&at);
    if (rc) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, out_w, 1);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, err_w, 2);
    if (!rc && spec->cwd)
        rc = posix_spawn_file_actions_addchdir_np(&fa, spec->cwd);
    if (!rc)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                               POSIX_SPAWN_SETSIGDEF);
    if (!rc)
        rc = posix_spawnattr_setpgroup(&at, pgid);
    if (!rc)
        rc = posix_spawnattr_setsigmask(&at, &none);
    if (!rc)
        rc = posix_spawnattr_setsigdefault(&at, &all);
    if (!rc) {
        char **envp = spec->env ? build_env(spec->env) : environ;
        rc = posix_spawn(pid, spec->argv[0], &fa, &at, (char *const *)spec->argv, envp);
        if (envp != environ)
            free(envp);
    }
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* Reads what is available on s; closes it at EOF or on a read error. */
static void drain(stream *s)
{
    char buf[65536];
    for (int round = 0; round < 16; round++) { /* bounded: a flooding writer cannot starve the timeout */
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            close_fd(&s->fd);
            return;
        }
        if (n == 0) {
            close_fd(&s->fd);
            return;
        }
        if (s->on_data)
            s->on_data(buf, (size_t)n, s->ctx);
        size_t room = s->sb->len < s->cap ? s->cap - s->sb->len : 0;
        size_t keep = (size_t)n < room ? (size_t)n : room;
        lvd_sb_add(s->sb, buf, keep);
        if (keep < (size_t)n)
            *s->truncated = 1;
    }
}

/* 1 when the child has exited (left as a zombie, so neither its pid nor the
 * group id, the guard's pid or its own, can be reused before we reap them). */
static int leader_exited(pid_t pid)
{
    siginfo_t si;
    for (;;) {
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
            return si.si_pid == pid;
        if (errno != EINTR)
            return 1; /* ECHILD: nothing left to wait for */
    }
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#else
    (void)pid;
    return -1;
#endif
}

/* Waits for the leader to exit, reading both pipes meanwhile; enforces the
 * timeout by signalling the group. Leaves the leader unreaped. */
static void supervise(const proc_spec *spec, pid_t pid, pid_t pgid, stream st[2], proc_result *res,
                      int64_t start)
{
    int pidfd = open_pidfd(pid);
    int done = 0, termed = 0, killed = 0;
    int64_t deadline = start + spec->timeout_ms;
    int64_t kill_at = 0, drain_until = 0;
    for (;;) {
        int64_t now = lvd_mono_ms();
        if (!done && leader_exited(pid)) {
            done = 1;
            kill(-pgid, SIGKILL); /* whatever it left behind in its group */
            drain_until = now + DRAIN_GRACE_MS;
            close_fd(&pidfd);
        }
        if (done && ((st[0].fd < 0 && st[1].fd < 0) || now >= drain_until))
            break;
        if (!done && !termed && now >= deadline) {
            res->timed_out = 1;
            termed = 1;
            kill(-pgid, SIGTERM);
            kill_at = now + KILL_GRACE_MS;
        }
        if (!done && termed && !killed && now >= kill_at) {
            killed = 1;
            kill(-pgid, SIGKILL);
        }
        int64_t until = done ? drain_until : !termed ? deadline : !killed ? kill_at : now + 1000;
        int64_t wait = until - now;
        if (!done && pidfd < 0 && wait > TICK_MS)
            wait = TICK_MS;
        if (wait < 0)
            wait = 0;
        struct pollfd pf[3];
        nfds_t n = 0;
        for (int i = 0; i < 2; i++)
            if (st[i].fd >= 0)
                pf[n++] = (struct pollfd){.fd = st[i].fd, .events = POLLIN};
        if (!done && pidfd >= 0)
            pf[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        if (poll(pf, n, (int)wait) < 0 && errno != EINTR)
            usleep(TICK_MS * 1000); /* ENOMEM: try again rather than spin */
        for (int i = 0; i < 2; i++)
            if (st[i].fd >= 0)
                drain(&st[i]);
    }
    close_fd(&pidfd);
}

static void reap(pid_t pid, proc_result *res)
{
    int status;
    pid_t r;
    do
        r = waitpid(pid, &status, 0);
    while (r < 0 && errno == EINTR);
    if (r != pid)
        return;
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->signo = WTERMSIG(status);
    }
}

int proc_run(const proc_spec *spec, proc_result *res, lvd_err *err)
{
    memset(res, 0, sizeof *res);
    lvd_sb_add(&res->out, "", 0);
    lvd_sb_add(&res->err, "", 0);
    res->exit_code = -1;
    if (!spec || !spec->argv || !spec->argv[0])
        return lvd_errf(err, "proc_run: no program given");
    if (spec->timeout_ms <= 0)
        return lvd_errf(err, "%s: proc_run needs a positive timeout", spec->argv[0]);

    int po[2], pe[2];
    if (make_pipe(po) != 0)
        return lvd_errf(err, "%s: cannot create pipe: %s", spec->argv[0], strerror(errno));
    if (make_pipe(pe) != 0) {
        int e = errno;
        close(po[0]);
        close(po[1]);
        return lvd_errf(err, "%s: cannot create pipe: %s", spec->argv[0], strerror(e));
    }
    int64_t start = lvd_mono_ms();
    int guard_w = -1;
    pid_t guard = guard_start(&guard_w);
    pid_t pid = -1;
    int rc = spawn(spec, po[1], pe[1], guard > 0 ? guard : 0, &pid);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        guard_stop(guard, &guard_w);
        close(po[0]);
        close(pe[0]);
        res->spawn_errno = rc;
        res->wall_ms = lvd_mono_ms() - start;
        return 0;
    }
    res->spawned = 1;
    size_t cap = spec->max_capture ? spec->max_capture : DEFAULT_CAPTURE;
    stream st[2] = {
        {.fd = po[0], .sb = &res->out, .truncated = &res->out_truncated, .cap = cap},
        {.fd = pe[0], .sb = &res->err, .truncated = &res->err_truncated, .cap = cap,
         .on_data = spec->on_err, .ctx = spec->on_err_ctx},
    };
    for (int i = 0; i < 2; i++)
        fcntl(st[i].fd, F_SETFL, fcntl(st[i].fd, F_GETFL) | O_NONBLOCK);
    supervise(spec, pid, guard > 0 ? guard : pid, st, res, start);
    close_fd(&st[0].fd);
    close_fd(&st[1].fd);
    reap(pid, res);
    guard_stop(guard, &guard_w);
    res->wall_ms = lvd_mono_ms() - start;
    return 0;
}

void proc_result_free(proc_result *res)
{
    if (!res)
        return;
    lvd_sb_free(&res->out);
    lvd_sb_free(&res->err);
}

const char *proc_describe(const proc_result *res, char *buf, size_t len)
{
    if (!res->spawned)
        snprintf(buf, len, "cannot execute: %s", strerror(res->spawn_errno));
    else if (res->timed_out)
        snprintf(buf, len, "timed out after %lld ms", (long long)res->wall_ms);
    else if (res->signaled)
        snprintf(buf, len, "killed by signal %d (%s)", res->signo, strsignal(res->signo));
    else if (res->exited)
        snprintf(buf, len, "exit %d", res->exit_code);
    else
        snprintf(buf, len, "ended in an unknown state");
    return buf;
}

int proc_ok(const proc_result *res)
{
    return res->spawned && !res->timed_out && res->exited && res->exit_code == 0;
}

char *proc_tail(const char *s, int max_lines)
{
    if (!s || max_lines <= 0)
        return lvd_xstrdup("");
    size_t len = strlen(s);
    size_t end = len;
    if (end && s[end - 1] == '\n')
        end--; /* a final newline does not start another line */
    size_t start = end;
    int lines = 0;
    while (start > 0) {
        if (s[start - 1] == '\n' && ++lines == max_lines)
            break;
        start--;
    }
    return lvd_xstrndup(s + start, len - start);
}

/* --- a long-lived child ---------------------------------------------------- */

int proc_start(const proc_spec *spec, const char *log_path, proc_child *c, lvd_err *err)
{
    memset(c, 0, sizeof *c);
    c->guard = c->guard_w = -1;
    if (!spec || !spec->argv || !spec->argv[0])
        return lvd_errf(err, "proc_start: no program given");
    int log = open(log_path ? log_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log >= 0)
        log = high_fd(log);
    if (log < 0)
        return lvd_errf(err, "%s: cannot open the log %s: %s", spec->argv[0], log_path ? log_path : "/dev/null",
                        strerror(errno));
    int guard_w = -1;
    pid_t guard = guard_start(&guard_w);
    pid_t pid = -1;
    int rc = spawn(spec, log, log, guard > 0 ? guard : 0, &pid);
    close(log);
    if (rc != 0) {
        guard_stop(guard, &guard_w);
        return lvd_errf(err, "%s: cannot execute: %s", spec->argv[0], strerror(rc));
    }
    c->pid = pid;
    c->pgid = guard > 0 ? guard : pid;
    c->guard = guard > 0 ? guard : -1;
    c->guard_w = guard_w;
    return 0;
}

int proc_child_exited(proc_child *c)
{
    if (c->pid <= 0 || c->reaped)
        return 1;
    int status;
    pid_t r;
    do
        r = waitpid(c->pid, &status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        return 0;
    c->reaped = 1;
    c->status = r == c->pid ? status : 0;
    return 1;
}

void proc_stop(proc_child *c, int grace_ms)
{
    if (c->pid <= 0)
        return;
    if (!proc_child_exited(c)) {
        kill(-c->pgid, SIGTERM);
        int64_t until = lvd_mono_ms() + (grace_ms > 0 ? grace_ms : 0);
        while (!proc_child_exited(c) && lvd_mono_ms() < until)
            usleep(TICK_MS * 1000);
    }
    kill(-c->pgid, SIGKILL); /* the child if it is still there, and anything it left in its group */
    if (!c->reaped) {
        int status;
        while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
            ;
        c->reaped = 1;
        c->status = status;
    }
    pid_t guard = c->guard;
    guard_stop(guard, &c->guard_w);
    c->guard = -1;
}

const char *proc_child_describe(const proc_child *c, char *buf, size_t len)
{
    if (!c->reaped)
        snprintf(buf, len, "running");
    else if (WIFEXITED(c->status))
        snprintf(buf, len, "exit %d", WEXITSTATUS(c->status));
    else if (WIFSIGNALED(c->status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
    else
        snprintf(buf, len, "ended in an unknown state");
    return buf;
}
