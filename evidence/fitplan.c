/* fitplan.c: llama.cpp's own fit beside ours on the evidence page (issue
 * 14): the plan llama-fit-params chose per device (store: fit_plans) next to
 * our placement's flags for the same free memory; the speed of each is in
 * the arms table (the "llama.cpp-fit" arm). Not for reading the store
 * (load.c) nor for running llama-fit-params (bench/fitarm.c). */
#include "evidence/format.h"
#include "evidence/render.h"

#include <stdio.h>
#include <string.h>

/* 1 when a later plan of the same engine and device follows plan i. */
static int superseded(const ev_model *m, size_t i)
{
    for (size_t k = i + 1; k < m->n_fit_plans; k++)
        if (m->fit_plans[k].engine_id == m->fit_plans[i].engine_id &&
            !strcmp(m->fit_plans[k].device, m->fit_plans[i].device))
            return 1;
    return 0;
}

void ev_fit_render_model(lvd_sb *sb, const ev_model *m)
{
    if (!m->n_fit_plans)
        return;
    lvd_sb_adds(sb, "\n### Placement: llama.cpp's own fit beside ours\n\n"
                    "What llama-fit-params chose for the device (-fitt: its margin, MiB) and what our "
                    "placement chose for the same free memory; newest per engine and device. Their "
                    "speeds are the arms above (llama.cpp-fit=N is llama.cpp's).\n\n"
                    "| engine | device | free MiB | -fitt | llama.cpp: -c | -ngl | experts of N blocks on "
                    "the host | ours |\n|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < m->n_fit_plans; i++) {
        const store_fit_plan *p = &m->fit_plans[i];
        if (superseded(m, i))
            continue;
        lvd_sb_addf(sb, "| %lld | ", (long long)p->engine_id);
        ev_md_cell(sb, p->device);
        lvd_sb_addf(sb, " | %lld | %d | %lld | %d | %d | ", (long long)p->free_mib, p->fit_target,
                    (long long)p->ctx, p->ngl, p->host_blocks);
        ev_md_cell(sb, p->ours ? p->ours : "");
        lvd_sb_adds(sb, " |\n");
    }
}
