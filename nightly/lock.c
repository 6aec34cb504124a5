/* lock.c: the nightly's job lock (lock.h): one nightly per store. */
#include "nightly/lock.h"

#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int night_lock(const char *store, int *fd, lvd_err *err)
{
    char *local = store_local_anchor(store); /* a PostgreSQL store: one nightly per host */
    char *path = lvd_xasprintf("%s.nightly.lock", local);
    free(local);
    if (lvd_mkdir_parent(path, err)) {
        free(path);
        return -1;
    }
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0) {
        lvd_errf(err, "%s: cannot open the lock: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(f, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        lvd_errf(err, "another nightly is running (pid %s holds %s)", *pid ? pid : "?", path);
        close(f);
        free(path);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(f, 0) != 0 || pwrite(f, pid, (size_t)n, 0) != n) {
        /* the lock holds without the pid; only the message is poorer */
    }
    free(path);
    *fd = f;
    return 0;
}

void night_unlock(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}
