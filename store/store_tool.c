/* store_tool.c: a tool's store, opened or its error printed (store_tool.h). */
#include "store/store_tool.h"

#include "common/cli.h"

#include <stdlib.h>

int store_tool_open(const char *tool, const char *store_opt, int flags, store **out)
{
    char *path = store_default_path(store_opt);
    lvd_err err = {{0}};
    int rc = store_open(path, flags, out, &err);
    free(path);
    if (rc != 0) {
        *out = NULL;
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    }
    return LVD_EXIT_OK;
}
