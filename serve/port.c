/* port.c: probing a loopback port and telling whose socket listens on it
 * (see port.h). */
#include "serve/port.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int serve_port_pick(int want, int *port, lvd_err *err)
{
    if (want < 0 || want > 65535)
        return lvd_errf(err, "port %d is not a TCP port (1 to 65535, or 0 for a free one)", want);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return lvd_errf(err, "cannot open a socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); /* as the server binds: TIME_WAIT is no owner */
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)want)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0 &&
                     getsockname(fd, (struct sockaddr *)&a, &len) == 0
                 ? 0
                 : -1;
    int e = errno;
    close(fd);
    if (rc && e == EADDRINUSE)
        return lvd_errf(err, "127.0.0.1:%d is in use by another process: choose another --port, or none for a "
                        "free one", want);
    if (rc)
        return lvd_errf(err, "cannot bind 127.0.0.1:%d: %s", want, strerror(e));
    *port = ntohs(a.sin_port);
    return 0;
}

/* The inode of the socket listening on port in one /proc/net/tcp* table
 * (loopback or any address), or 0 when none. -1 when the table cannot be
 * read. */
static long listen_inode(const char *table, int port)
{
    FILE *f = fopen(table, "r");
    if (!f)
        return -1;
    char line[512];
    long inode = 0;
    while (!inode && fgets(line, sizeof line, f)) {
        char local[128], remote[128], st[8];
        unsigned long ino;
        if (sscanf(line, " %*d: %127s %127s %7s %*s %*s %*s %*s %*s %lu", local, remote, st, &ino) != 4)
            continue;
        const char *colon = strrchr(local, ':');
        unsigned p;
        if (!colon || strcmp(st, "0A") || sscanf(colon + 1, "%x", &p) != 1 || (int)p != port)
            continue;
        size_t alen = (size_t)(colon - local);
        /* 127.0.0.1 (0100007F), 0.0.0.0, ::ffff:127.0.0.1, :: */
        if ((alen == 8 && (!strncmp(local, "0100007F", 8) || !strncmp(local, "00000000", 8))) ||
            (alen == 32 && (!strncmp(local, "0000000000000000FFFF00000100007F", 32) ||
                            !strncmp(local, "00000000000000000000000000000000", 32))))
            inode = (long)ino;
    }
    fclose(f);
    return inode;
}

/* 1 when pid holds socket:[inode] among its fds, 0 when not, -1 unreadable. */
static int holds_socket(int pid, long inode)
{
    char dir[64], want[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    snprintf(want, sizeof want, "socket:[%ld]", inode);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        char path[400], target[64];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            found = !strcmp(target, want);
        }
    }
    closedir(d);
    return found;
}

int serve_port_owned_by(int port, int pid)
{
    long v4 = listen_inode("/proc/net/tcp", port);
    long v6 = v4 > 0 ? 0 : listen_inode("/proc/net/tcp6", port);
    if (v4 < 0 && v6 < 0)
        return -1;
    long inode = v4 > 0 ? v4 : v6 > 0 ? v6 : 0;
    return inode == 0 ? 0 : holds_socket(pid, inode);
}
