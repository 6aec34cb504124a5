/* fallback.c: when lvd select reads its local fallback copy, and refreshing
 * it (select/fallback.h). */
#include "select/fallback.h"

#include "select/select.h"

#include "common/cli.h"
#include "store/fleetdb.h"

#include <stdlib.h>
#include <string.h>

const char *sel_fallback_path(void)
{
    const char *p = getenv("LVD_STORE_FALLBACK");
    return p && *p ? p : NULL;
}

int sel_fallback_refresh(store *s, const char *host, lvd_err *err)
{
    const char *path = sel_fallback_path();
    if (!path)
        return 0;
    return store_fallback_refresh(s, path, host ? host : lvd_hostname(), err);
}

int sel_fallback_open(const char *primary, const char *model, store **s, store_artifact *artifact,
                      int *exit_code, char **why, lvd_err *err)
{
    const char *path = sel_fallback_path();
    *why = NULL;
    if (!path || *exit_code != LVD_EXIT_STORE || !strcmp(path, primary))
        return 0;
    char *first = lvd_xstrdup(err->msg);
    if (sel_open_identify(path, model, 0, s, artifact, exit_code, err) != 0) {
        char *second = lvd_xstrdup(err->msg);
        lvd_errf(err, "%s; the fallback copy too: %s", first, second);
        free(first);
        free(second);
        return -1;
    }
    *why = first;
    return 1;
}
