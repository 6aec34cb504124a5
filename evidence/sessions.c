/* sessions.c: the sessions of a list of runs, numbered (see sessions.h). */
#include "evidence/sessions.h"

#include "common/util.h"

#include <stdlib.h>
#include <string.h>

static const char *session_of(const lvd_run *r)
{
    return r->session ? r->session : "";
}

/* Run indices by session name, then index (qsort_r's context: the runs). */
static int by_session(const void *x, const void *y, void *ctx)
{
    const lvd_run *runs = ctx;
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int c = strcmp(session_of(&runs[a]), session_of(&runs[b]));
    return c ? c : (a > b) - (a < b);
}

/* Groups (their first run's index, their number) by first run. */
static int by_first(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

size_t ev_session_ids(const lvd_run *runs, size_t n, size_t *id)
{
    size_t *idx = lvd_xcalloc(n + 1, sizeof *idx), *first = lvd_xcalloc(n + 1, sizeof *first);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    qsort_r(idx, n, sizeof *idx, by_session, (void *)runs);
    size_t groups = 0;
    for (size_t i = 0; i < n; groups++) {
        size_t j = i;
        while (j < n && !strcmp(session_of(&runs[idx[j]]), session_of(&runs[idx[i]])))
            id[idx[j++]] = groups; /* provisional: the group's rank by name */
        first[groups] = idx[i];    /* its lowest index: ties were broken by index */
        i = j;
    }
    /* renumber by first appearance: the group of a first run keeps that run's id */
    qsort(first, groups, sizeof *first, by_first);
    size_t *renum = lvd_xcalloc(groups + 1, sizeof *renum);
    for (size_t k = 0; k < groups; k++)
        renum[id[first[k]]] = k;
    for (size_t i = 0; i < n; i++)
        id[i] = renum[id[i]];
    free(renum);
    free(first);
    free(idx);
    return groups;
}
