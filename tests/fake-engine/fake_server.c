/* fake_server.c: the llama-server persona: validates its argv, loads the
 * model, logs as the real server does; given --port it binds it first and
 * serves HTTP after the load until SIGTERM (fake_http.c), without one it
 * logs "listening" and exits; with server_check it stops right after "model
 * loaded". Not for argument parsing (args.c) or HTTP (fake_http.c). */
#include "fake.h"

/* ----------------------------------------------------------- llama-server */

int server_main(int argc, char **argv)
{
    cargs c;
    int rc = common_parse(argc, argv, 1, &c);
    if (rc != 0) {
        cargs_free(&c);
        return rc < 0 ? 1 : 0;
    }
    char *T = common_target(&c);
    const char *model = opt_get(&c, "-m");
    fault_t f = fault_for("server", T);
    G.log_us = 2122;
    log_line('I', "cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)\n");
    if (!opt_get(&c, "--api-key") && !opt_get(&c, "--api-key-file")) {
        log_line('W', "srv  llama_server: -----------------\n");
        log_line('W', "srv  llama_server: CORS is set to allow all origins ('*') and no API key is set\n");
        log_line('W', "srv  llama_server: this can be a security risk (cross-origin attacks)\n");
        log_line('W', "srv  llama_server: more info: https://github.com/ggml-org/llama.cpp/pull/25655\n");
        log_line('W', "srv  llama_server: -----------------\n");
    }
    const char *host = opt_get(&c, "--host"), *port = opt_get(&c, "--port");
    host = host ? host : "127.0.0.1";
    int lfd = -1;
    if (port && (lfd = http_bind(host, port)) < 0) {
        log_line('E', "srv  llama_server: couldn't bind HTTP server socket, hostname: %s, port: %s\n", host, port);
        free(T);
        cargs_free(&c);
        return 1;
    }
    log_line('I', "srv    load_model: loading model '%s'\n", model ? model : "");
    if (f == F_HANG)
        hang_now();
    if (f == F_GARBAGE)
        garbage_now(stderr);
    if (f == F_CRASH || f == F_TRUNCATED)
        partial_now(stderr, "srv    load_model: initializing, n_slots = 4", f);
    model_meta m;
    if (f == F_EXIT1 || !model || model_load(model, &m) != 0) {
        if (lfd >= 0)
            close(lfd);
        log_line('E', "srv    load_model: failed to load model, '%s'\n", model ? model : "");
        log_line('I', "srv    operator(): operator(): cleaning up before exit...\n");
        log_line('E', "main: exiting due to model loading error\n");
        free(T);
        cargs_free(&c);
        return 1;
    }
    free(m.type);
    const char *ctx = opt_get(&c, "-c");
    const char *np = opt_get(&c, "-np");
    long n_ctx = ctx && atol(ctx) > 0 ? atol(ctx) : 4096;
    long n_slots = np && atol(np) > 0 ? atol(np) : 4;
    do_work_sleep(0);
    log_line('I', "srv    load_model: initializing, n_slots = %ld, n_ctx_slot = %ld, kv_unified = 'true'\n", n_slots,
         n_ctx);
    log_line('I', "srv  llama_server: model loaded\n");
    const char *chk = getenv("FAKE_SERVER_CHECK");
    if (streq(chk, "1") || scn_long("server_check", 0) == 1) {
        if (lfd >= 0)
            close(lfd);
        free(T);
        cargs_free(&c);
        return 0;
    }
    if (lfd >= 0) {
        rc = http_serve(lfd, host, port, (int)n_slots, opt_get(&c, "--metrics") != NULL);
        free(T);
        cargs_free(&c);
        return rc;
    }
    log_line('I', "srv  llama_server: listening on http://%s:%s\n", host, "8080");
    G.log_us += 5103637;
    log_line('I', "srv    operator(): operator(): cleaning up before exit...\n");
    free(T);
    cargs_free(&c);
    return 0;
}
