/* main.c: the fake engine's entry point: picks the persona from argv[0]'s
 * basename (or `fake-engine llama-bench ARGS`), loads the scenario, starts
 * the invocation and hands over to bench_main, server_main or ppl_main. */
#include "fake_bench.h"

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    static const struct {
        const char *name, *persona;
    } personas[] = { { "llama-bench", "bench" }, { "llama-server", "server" }, { "llama-perplexity", "ppl" },
                      { "llama-fit-params", "fit" } };
    const char *argv0 = argc > 0 ? argv[0] : "fake-engine";
    const char *bn = lvd_base_name(argv0);
    int shift = 0;
    for (int pass = 0; pass < 2 && !G.persona; pass++) {
        const char *cand = pass == 0 ? bn : (argc > 1 ? argv[1] : "");
        for (size_t i = 0; i < LVD_ARRAY_LEN(personas); i++)
            if (strcmp(cand, personas[i].name) == 0) {
                G.persona = personas[i].persona;
                shift = pass;
            }
    }
    if (!G.persona) {
        fprintf(stderr, "fake-engine: unknown persona '%s' (invoke as llama-bench, llama-server or "
                        "llama-perplexity, or as fake-engine llama-bench ...)\n",
                bn);
        return 2;
    }
    G.prog = shift ? argv[1] : argv0;
    scn_load(argv0);
    int ac = argc - shift;
    char **av = argv + shift;
    inv_start(ac, av, lvd_base_name(G.prog));
    int rc;
    if (strcmp(G.persona, "bench") == 0)
        rc = bench_main(ac, av);
    else if (strcmp(G.persona, "server") == 0)
        rc = server_main(ac, av);
    else if (strcmp(G.persona, "fit") == 0)
        rc = fit_main(ac, av);
    else
        rc = ppl_main(ac, av);
    flush_all();
    fake_free();
    return rc;
}
