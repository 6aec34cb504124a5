/* devlock.c: the host's device lock (see devlock.h): the file, the holder's
 * line in it, taking it (inherited, at once, or waiting), letting go. */
#include "engine/devlock.h"

#include "common/cli.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WAIT_TICK_MS 100

char *engine_devlock_path(const char *store)
{
    const char *dir = getenv("LVD_LOCK_DIR");
    if (dir && *dir)
        return lvd_xasprintf("%s/devices.lock", dir);
    char *s = store_default_path(store);
    char *local = store_local_anchor(s); /* a PostgreSQL store locks this host's devices locally */
    char *p = lvd_xasprintf("%s.devices.lock", local);
    free(local);
    free(s);
    return p;
}

/* The holder as its line says: "pid N (TOOL, since HH:MM:SSZ)", with a note
 * when that process is gone (a child of it still holds the fd). */
static void holder(int fd, char *buf, size_t len)
{
    char line[256] = "";
    ssize_t n = pread(fd, line, sizeof line - 1, 0);
    line[n > 0 ? n : 0] = '\0';
    long pid = 0;
    long long at = 0;
    char tool[64] = "?";
    if (sscanf(line, "%ld %63s %lld", &pid, tool, &at) < 1 || pid <= 0) {
        snprintf(buf, len, "a process that has not written its pid yet");
        return;
    }
    char since[32] = "?";
    if (at > 0)
        lvd_format_utc(at, since, sizeof since);
    int alive = kill((pid_t)pid, 0) == 0 || errno == EPERM;
    snprintf(buf, len, "pid %ld (%s, since %s)%s", pid, tool, since,
             alive ? "" : ", which has ended: a process it started still holds it");
}

/* 1 when fd LVD_DEVLOCK_FD names is this lock file, open, and held through it. */
static int take_inherited(const char *path, engine_devlock *out)
{
    const char *v = getenv(ENGINE_DEVLOCK_ENV);
    int64_t fd;
    struct stat a, b;
    if (!v || lvd_parse_i64(v, &fd) || fd < 3 || fd > 1 << 20 || fstat((int)fd, &a) || stat(path, &b) ||
        a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        return 0;
    if (flock((int)fd, LOCK_EX | LOCK_NB) != 0) /* another open of the file: not ours */
        return 0;
    out->fd = (int)fd;
    out->inherited = 1;
    return 1;
}

/* Writes "PID TOOL EPOCH" and names the fd for the children. */
static void mark(engine_devlock *l, const char *tool)
{
    char line[128];
    int n = snprintf(line, sizeof line, "%ld %s %lld\n", (long)getpid(), tool, (long long)time(NULL));
    if (ftruncate(l->fd, 0) != 0 || pwrite(l->fd, line, (size_t)n, 0) != n) {
        /* the lock holds without the line; only a waiter's message is poorer */
    }
    char fd[16];
    snprintf(fd, sizeof fd, "%d", l->fd);
    setenv(ENGINE_DEVLOCK_ENV, fd, 1);
}

/* Opens the lock file (no O_CLOEXEC: children inherit the lock). */
static int open_lock(const char *path, lvd_err *err)
{
    if (lvd_mkdir_parent(path, err))
        return -1;
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0)
        lvd_errf(err, "%s: cannot open the device lock: %s", path, strerror(errno));
    return fd;
}

int engine_devlock_take(const char *store, const char *tool, int64_t wait_ms, engine_devlock *out,
                        lvd_err *err)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->path = engine_devlock_path(store);
    if (take_inherited(out->path, out))
        return 0;
    int fd = open_lock(out->path, err);
    if (fd < 0)
        return -1;
    int64_t deadline = lvd_mono_ms() + (wait_ms > 0 ? wait_ms : 0);
    int said = 0;
    char who[320];
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        holder(fd, who, sizeof who);
        if (errno != EWOULDBLOCK || lvd_mono_ms() >= deadline) {
            lvd_errf(err, "the devices are in use: %s holds %s%s", who, out->path,
                     wait_ms > 0 ? " (waited for it)" : "; --wait DUR waits for it");
            close(fd);
            return 1;
        }
        if (!said++)
            fprintf(stderr, "%s: waiting up to %llds for the devices: %s holds %s\n", tool,
                    (long long)((wait_ms + 999) / 1000), who, out->path);
        usleep(WAIT_TICK_MS * 1000);
    }
    out->fd = fd;
    mark(out, tool);
    return 0;
}

void engine_devlock_release(engine_devlock *l)
{
    if (!l)
        return;
    if (l->fd >= 0)
        close(l->fd); /* never LOCK_UN: that would free it under a child still holding it */
    free(l->path);
    memset(l, 0, sizeof *l);
    l->fd = -1;
}

int engine_devlock_tool(const char *tool, const char *store, int64_t wait_ms, engine_devlock *out)
{
    lvd_err err = {{0}};
    int rc = engine_devlock_take(store, tool, wait_ms, out, &err);
    if (rc == 0)
        return LVD_EXIT_OK;
    lvd_error(tool, "%s", err.msg);
    engine_devlock_release(out);
    return rc > 0 ? LVD_EXIT_LOCKED : LVD_EXIT_FAIL;
}
