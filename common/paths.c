/* paths.c: the XDG state directory and the shipped data directory (paths.h). */
#include "common/paths.h"

#include "common/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *lvd_state_path(const char *rel)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *sep = rel && *rel ? "/" : "";
    if (xdg && *xdg == '/')
        return lvd_xasprintf("%s/llama-verdict%s%s", xdg, sep, rel ? rel : "");
    const char *home = getenv("HOME");
    return lvd_xasprintf("%s/.local/share/llama-verdict%s%s", home && *home ? home : ".", sep,
                         rel ? rel : "");
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *lvd_exe_dir(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    return lvd_xstrdup(self);
}

const char *lvd_datadir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *env = getenv("LVD_DATADIR");
    if (env && *env && is_dir(env)) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    char *exe = lvd_exe_dir();
    if (exe) {
        char *cand = lvd_xasprintf("%s/../share/llama-verdict", exe);
        int ok = is_dir(cand);
        if (ok)
            snprintf(dir, sizeof dir, "%s", cand);
        free(cand);
        free(exe);
        if (ok)
            return dir;
    }
    snprintf(dir, sizeof dir, "%s", is_dir(LVD_DATADIR) ? LVD_DATADIR : LVD_SOURCE_SHARE);
    return dir;
}

char *lvd_data_file(const char *name)
{
    char *p = lvd_xasprintf("%s/%s", lvd_datadir(), name);
    if (access(p, R_OK) == 0)
        return p;
    free(p);
    return NULL;
}
