/* placereport.c: see placereport.h. */
#include "bench/placereport.h"

void bench_placement_print(FILE *f, const bench_session *s)
{
    for (size_t i = 0; i < s->plan->n_notes; i++)
        fprintf(f, "placement: %s\n", s->plan->notes[i]);
}

cJSON *bench_placement_json(const bench_session *s)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < s->plan->n_notes; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(s->plan->notes[i]));
    return a;
}
