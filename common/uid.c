/* uid.c: random identities (see uid.h). Not for hashing (sha256.c). */
#include "common/uid.h"

#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads n random bytes from /dev/urandom; aborts when it cannot. */
static void random_bytes(unsigned char *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t got = 0;
    while (fd >= 0 && got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (fd >= 0)
        close(fd);
    if (got < n) {
        fprintf(stderr, "llama-verdict: /dev/urandom: cannot read random bytes for an identity\n");
        abort();
    }
}

static void hex_of(const unsigned char *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

void lvd_uid(char buf[LVD_UID_LEN + 1])
{
    unsigned char b[LVD_UID_LEN / 2];
    random_bytes(b, sizeof b);
    hex_of(b, sizeof b, buf);
}

char *lvd_session_name(const char *prefix, const char *stamp)
{
    unsigned char b[4];
    char rand[9];
    random_bytes(b, sizeof b);
    hex_of(b, sizeof b, rand);
    return lvd_xasprintf("%s-%s-%s-%s", prefix, stamp, lvd_hostname(), rand);
}
