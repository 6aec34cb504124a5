/* lvd-store.c: `lvd store`: look into the store (info, engines, artifacts,
 * runs), import llama-bench output, record a model, merge another store.
 * Option parsing only; the work is in store/ (store_show.c, the merge),
 * bench/runs_show.c and benchio/import_batch.c. */
#include "benchio/import.h"
#include "benchio/import_batch.h"
#include "bench/runs_show.h"
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-store"

typedef struct options {
    lvd_tool_opts t; /* --store, --json, --host */
    char **files;    /* the command's operands */
    int n_files;
    /* import: each --engine, --model, --artifact given (once: for every file;
     * once per file: the file's, in order) */
    lvd_opt_strs engines, models, artifacts;
    const char *engine_dir, *build, *env, *session;
    const char *select_build, *select_model, *select_backend;
    benchio_format format;
    const char *engine, *artifact, *model; /* runs --engine, --artifact; model -m */
    int64_t limit;
} options;

/* --format auto|json|jsonl|sql */
static int format(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    return benchio_format_parse(arg, field) ? lvd_errf(err, "wants auto, json, jsonl or sql, not '%s'", arg) : 0;
}

static const lvd_opt runs_opts[] = {
    {.spell = "--limit", .arg = "N", .kind = LVD_OPT_INT, .lo = 0, .hi = 1e9, LVD_AT(limit), .def = "50",
     .help = "the newest N runs (0 = all)"},
    {.spell = "--engine", .arg = "NAME", .kind = LVD_OPT_STR, LVD_AT(engine), .help = "only this engine's"},
    {.spell = "--artifact", .arg = "SHA256", .kind = LVD_OPT_STR, LVD_AT(artifact), .help = "only this model's"},
    {LVD_OPT_HOST_AS("only this host's, its engines named as that host names them (default: every host's)")},
    {0},
};

static const lvd_opt engines_opts[] = {
    {LVD_OPT_HOST_AS("this host's (default: this machine's)")},
    {0},
};

static const lvd_opt import_opts[] = {
    {.spell = "--engine", .arg = "NAME", .kind = LVD_OPT_STRS, LVD_AT(engines),
     .help = "the engine that ran it, one in the store (once, or once per file)"},
    {.spell = "--engine-dir", .arg = "DIR", .kind = LVD_OPT_STR, LVD_AT(engine_dir),
     .help = "or register DIR as that engine (origin \"imported\"), with --build ID"},
    {.spell = "--build", .arg = "ID", .kind = LVD_OPT_STR, LVD_AT(build), .help = "the build of --engine-dir"},
    {LVD_OPT_MODELS, LVD_AT(models), .help = "the model (hashed, shape recorded; once, or once per file)"},
    {.spell = "--artifact", .arg = "SHA256", .kind = LVD_OPT_STRS, LVD_AT(artifacts),
     .help = "or its sha256 when the file is elsewhere (once, or once per file)"},
    {LVD_OPT_HOST},
    {.spell = "--env", .arg = "\"K=V ...\"", .kind = LVD_OPT_STR, LVD_AT(env),
     .help = "the environment the runs had"},
    {.spell = "--format", .arg = "auto|json|jsonl|sql", .kind = LVD_OPT_CALL, .call = format, LVD_AT(format),
     .help = "what the file holds (default: told by its first bytes)"},
    {.spell = "--session", .arg = "NAME", .kind = LVD_OPT_STR, LVD_AT(session),
     .help = "join this session (default import:BASENAME); imports that share one are compared together"},
    {.spell = "--select-build", .arg = "COMMIT|bNNNN", .kind = LVD_OPT_STR, LVD_AT(select_build),
     .help = "only those rows of a mixed file"},
    {.spell = "--select-model", .arg = "FILENAME", .kind = LVD_OPT_STR, LVD_AT(select_model),
     .help = "only those rows of a mixed file"},
    {.spell = "--select-backend", .arg = "CUDA|CPU|Vulkan|...", .kind = LVD_OPT_STR, LVD_AT(select_backend),
     .help = "only those rows; rows of another backend than the engine's are refused, never filed"},
    {0},
};

static const lvd_opt model_opts[] = {
    {LVD_OPT_MODEL, LVD_AT(model), .help = "the model file (instead of the operand)"},
    {0},
};

static const lvd_opt table[] = {
    {LVD_OPT_STORE_AS("the store: an SQLite file, or a PostgreSQL URI (postgresql://USER@HOST/DB, service=NAME; "
                      "its password only in ~/.pgpass, PGPASSWORD or a service file); default "
                      "$XDG_DATA_HOME/llama-verdict/store.db")},
    {LVD_OPT_JSON, .help = "print JSON instead of a table"},
    {0},
};

static int cmd_info(store *s, const options *o) { return store_show_info(TOOL, s, o->t.json); }
static int cmd_engines(store *s, const options *o) { return store_show_engines(TOOL, s, o->t.json); }
static int cmd_artifacts(store *s, const options *o) { return store_show_artifacts(TOOL, s, o->t.json); }
static int cmd_merge(store *s, const options *o) { return store_tool_merge(TOOL, s, o->files[0], o->t.json); }

static int cmd_runs(store *s, const options *o)
{
    bench_runs_filter f = {.engine = o->engine, .artifact = o->artifact, .host = o->t.host, .limit = (int)o->limit,
                           .json = o->t.json};
    return bench_runs_show(TOOL, s, &f);
}

static int cmd_model(store *s, const options *o)
{
    return store_show_model(TOOL, s, o->model ? o->model : o->files[0], o->t.json);
}

/* The last of v's values (what one file takes), or NULL. */
static const char *last(const lvd_opt_strs *v) { return v->n ? v->v[v->n - 1] : NULL; }

static int cmd_import(store *s, const options *o)
{
    benchio_import_opts base = {.format = o->format, .engine = last(&o->engines), .engine_dir = o->engine_dir,
                              .build = o->build, .model = last(&o->models), .artifact = last(&o->artifacts),
                              .host = o->t.host, .env = o->env, .session = o->session,
                              .select_build = o->select_build, .select_model = o->select_model,
                              .select_backend = o->select_backend};
    benchio_import_batch b = {.base = &base, .files = (const char *const *)o->files, .n_files = o->n_files,
                            .engines = o->engines.v, .models = o->models.v, .artifacts = o->artifacts.v,
                            .n_engines = (int)o->engines.n, .n_models = (int)o->models.n,
                            .n_artifacts = (int)o->artifacts.n, .json = o->t.json};
    return benchio_import_batch_run(s, &b, TOOL);
}

/* How a command runs: its function, and whether it writes the store. */
typedef struct command {
    int (*run)(store *, const options *);
    int writes;
} command;

static const lvd_opt_cmd commands[] = {
    {"info", NULL, "the store's path, schema version and row counts", NULL, &(command){cmd_info, 0}},
    {"engines", NULL, "engines: id, name, build, backend (from the latest probe), directory", engines_opts,
     &(command){cmd_engines, 0}},
    {"artifacts", NULL, "models: sha256, size, architecture, blocks, experts, file type", NULL,
     &(command){cmd_artifacts, 0}},
    {"runs", NULL, "runs, one line per test: id, engine, test, median t/s, samples, status, arm", runs_opts,
     &(command){cmd_runs, 0}},
    {"import", "FILE...",
     "record llama-bench output (-o json, -o jsonl or -o sql, or the SQLite database compare-llama-bench.py "
     "reads) as runs: one run per consecutive parameter set, warm-up samples flagged as lvd bench flags them; "
     "importing again adds nothing. Several files take one store open, one transaction each; --engine, --model "
     "and --artifact given once serve every file, given once per file name each file's in order; the first file "
     "that fails stops the rest (--json: an array of the files' objects).",
     import_opts, &(command){cmd_import, 1}},
    {"model", "M.gguf", "record a model file and print its sha256 and GGUF shape", model_opts,
     &(command){cmd_model, 1}},
    {"merge", "OTHER", "add another store's measurements (rows keep their host; idempotent)", NULL,
     &(command){cmd_merge, 1}},
    {NULL, NULL, NULL, NULL, NULL},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Look into the llama-verdict store, import llama-bench results, record a model.",
    .opts = table,
    .cmds = commands,
    .exits = "0 ok, 1 failed, 2 usage, 3 bad input file (import file, model, OTHER), 4 store cannot be opened (its "
             "server unreachable), is newer than this binary, or failed.",
    .examples = "lvd store info\n"
                "llama-bench -m m.gguf -o jsonl > out.jsonl\n"
                "lvd store import out.jsonl --engine b9749-cpu --model m.gguf\n"
                "lvd store import old.sql --engine-dir /opt/llama-b9749 --build b9749 --artifact 9739...\n"
                "lvd store import week/*-cuda.jsonl --engine b9749-cuda --model m.gguf\n"
                "lvd store import cpu.jsonl cuda.jsonl --engine b9749-cpu --engine b9749-cuda -m m.gguf\n"
                "lvd store import cuda.jsonl --engine b9749-cuda --artifact 9739... --session h200-nov\n"
                "lvd store runs --limit 20 --json\n"
                "lvd store runs --host gpu-box-3 --engine b9749-cuda\n"
                "lvd store --store postgresql://lvd@db.lab/llama_verdict info\n"
                "lvd store merge /mnt/usb/gpu-box-3.db",
};

/* The command's operands: import takes FILE..., model M.gguf (or -m),
 * merge OTHER. 0 or a usage error's exit code. */
static int operands(const lvd_opt_cmd *c, const options *o)
{
    const char *name = c->name;
    if (!strcmp(name, "model") && o->model && o->n_files)
        return lvd_usage_error(TOOL, "model takes M.gguf or --model M.gguf, not both");
    if (!o->n_files && !(o->model && !strcmp(name, "model")))
        return lvd_usage_error(TOOL, "%s needs %s", name, !strcmp(name, "import") ? "a FILE" : c->operands);
    if (o->n_files > 1 && strcmp(name, "import"))
        return lvd_usage_error(TOOL, "unexpected argument '%s'", o->files[1]);
    return 0;
}

int main(int argc, char **argv)
{
    options o = {0};
    lvd_opt_result r;
    int rc = lvd_opt_parse(&tool, argc, argv, &o, &r);
    o.files = argv + 1;
    o.n_files = r.n_operands;
    if (rc == 0 && r.cmd->operands)
        rc = operands(r.cmd, &o);
    if (rc == 0) {
        const command *c = r.cmd->data;
        store *s;
        rc = store_tool_open(TOOL, o.t.store, c->writes ? STORE_OPEN_CREATE : STORE_OPEN_READONLY, &s);
        if (rc == LVD_EXIT_OK) {
            rc = c->run(s, &o);
            store_close(s);
        }
    }
    lvd_opt_free(&tool, &o);
    return rc < 0 ? LVD_EXIT_OK : rc;
}
