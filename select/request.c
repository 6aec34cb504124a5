/* request.c: the selection's first step (select.h): a request's defaults,
 * and the store opened with the model it names identified (from the hash
 * cache when it can answer). The options themselves are parsed into a
 * sel_request by lvd select's option table (select_cli.c). Not for what is
 * read for the decision (gather.c). */
#include "select/select.h"

#include "common/cli.h"
#include "store/identify.h"

#include <string.h>

void sel_request_init(sel_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->ctx = -1;
    rq->free_mib = -1;
    stats_objective_default(&rq->objective);
}

int sel_open_identify(const char *store_path, const char *model, int writable, store **s,
                      store_artifact *artifact, int *exit_code, lvd_err *err)
{
    *s = NULL;
    memset(artifact, 0, sizeof *artifact);
    *exit_code = LVD_EXIT_STORE;
    if (store_open(store_path, writable ? 0 : STORE_OPEN_READONLY, s, err) != 0)
        return -1;
    int rc = writable ? 1 : store_identify_cached(*s, model, artifact, err);
    if (rc == 1) {
        /* new or changed model: hash it into a writable store */
        if (!writable) {
            store_close(*s);
            if (store_open(store_path, 0, s, err) != 0) {
                *s = NULL;
                return -1;
            }
        }
        rc = store_identify(*s, model, 0, artifact, NULL, err);
    }
    if (rc != 0) {
        *exit_code = LVD_EXIT_INPUT;
        store_close(*s);
        *s = NULL;
        return -1;
    }
    return 0;
}
