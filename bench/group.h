/* group.h: which arms of a plan can share one llama-bench process. llama-bench
 * loads the model before its first test and again only when a model
 * parameter changes between consecutive tests (-m, -ngl, -ncmoe, -sm, -mg,
 * -dev, -ts, -ot, -lm ...); context parameters (-fa, -ub, -ctk, -ctv, -t)
 * change per test on the loaded model. So arms of one engine that differ
 * only in context parameters run in one invocation, paying one load:
 *   - shareable: same engine and binary, same device, -ngl, -ncmoe and
 *     environment (the process key, bench_process_key), and each context flag
 *     passed by both or by neither;
 *   - a group is a full cross product of its varying context flags (llama-
 *     bench runs the cross product of its lists; a product with a hole would
 *     run an arm nobody asked for): needed arms of one process key that are
 *     not split into the groups of the first varying flag (in llama-bench's
 *     nesting order ub, ctk, ctv, fa, t) with the others fixed;
 *   - in the invocation, the outermost varying flag's list goes A B .. B A
 *     (`-fa 1,0,0,1`), so every arm runs twice, early and late, and drift
 *     inside the process hits all alike (abba; -1: the plain list, which the
 *     session asks for where the order buys nothing, bench/reps.h); an arm
 *     alone runs as before;
 *   - an arm flagged solo (its group failed once) never shares again, so one
 *     arm's crash cannot exclude the others.
 * Rows are split back per arm from llama-bench's per-row fields (flash_attn,
 * n_ubatch, type_k, type_v, n_threads). Not for running the process
 * (bench/invoke.h) or the session loop (bench/runner.h). The order of a
 * look's groups: bench_groups_order below. */
#ifndef LVD_BENCH_GROUP_H
#define LVD_BENCH_GROUP_H

#include "bench/plan.h"
#include "common/types.h"

#include <stddef.h>

enum { BENCH_CTX_UB, BENCH_CTX_CTK, BENCH_CTX_CTV, BENCH_CTX_FA, BENCH_CTX_T, BENCH_CTX_COUNT };

typedef struct bench_group {
    size_t *arms;                  /* plan indices, in plan order */
    size_t n;
    int vary[BENCH_CTX_COUNT];     /* the context flags that differ between its arms */
    int abba;                      /* the flag whose list goes A B .. B A; -1 alone */
} bench_group;

/* The process key of arm: "ENGINE_ID BINARY dev=.. ngl=.. ncmoe=.. env=..". malloc'd. */
char *bench_process_key(const bench_arm *arm);

/* Partitions the arms with need[i] set into groups (rules above); share 0:
 * every arm alone. solo[i] set keeps arm i alone. Groups come in the order of
 * their first arm. Free with bench_groups_free. */
size_t bench_groups_make(const bench_plan *plan, const unsigned char *need, const unsigned char *solo,
                         int share, bench_group **out);
void bench_groups_free(bench_group *g, size_t n);

/* The order in which a look runs its groups (bench_groups_order), lowest
 * first: a hardware GPU device's key, then the same with an environment
 * variant, then the host's (the CPU-only arm, or a software rasterizer the
 * probe names: engine_device_is_software). The leader is most often on a
 * GPU, and measured first (its samples are the cheapest) it lets every later
 * key's first look be sized to race against it (bench/reps.h, "first look");
 * environment variants and the host are the likeliest to be far behind. */
enum { BENCH_CLASS_GPU, BENCH_CLASS_GPU_ENV, BENCH_CLASS_HOST };
int bench_group_class(const bench_plan *plan, const bench_group *g);
/* Orders g[0..n) by bench_group_class, stably (plan order within a class). */
void bench_groups_order(const bench_plan *plan, bench_group *g, size_t n);

/* Instances per arm in one invocation of g: 2 when shared (A B B A), else 1
 * (alone, or abba -1: the plain list, bench/reps.h "far behind"). */
size_t bench_group_slots(const bench_group *g);

/* The comma list of context flag d over g's arms (distinct values in arm
 * order, A B .. B A for g->abba), e.g. "1,0,0,1"; NULL when g's arms do not
 * pass the flag. malloc'd. */
char *bench_group_list(const bench_plan *plan, const bench_group *g, int d);

/* The member of g (index into g->arms) that result r belongs to, by its
 * reported context fields; (size_t)-1 when none matches. */
size_t bench_group_match(const bench_plan *plan, const bench_group *g, const lvd_result *r);

#endif
