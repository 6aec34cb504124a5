/* lvd-evidence.c: the `lvd evidence` tool. Reads the store into the page
 * model, renders the markdown page and its SVG charts, and writes them all
 * or none. Option parsing and printing only; the work is evidence/. */
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "evidence/model.h"
#include "evidence/render.h"
#include "store/store.h"
#include "store/store_tool.h"

#define TOOL "lvd-evidence"

typedef struct options {
    lvd_tool_opts t; /* --store, --json, --host */
    const char *out;
    const char *title;
    lvd_opt_strs models, notes;
    int64_t nights;
    int fleet;
} options;

#define PAGE .form = LVD_FORM(0)
static const lvd_opt table[] = {
    {.spell = "--out", .arg = "FILE", .kind = LVD_OPT_STR, .flags = LVD_OPT_NONEMPTY, LVD_AT(out), PAGE,
     .def = "docs/evidence/backend-selection.md",
     .help = "the page; charts are written beside it as STEM-SHA12-{pp,tg,tg-history,pp-history,tg-depth,pp-depth,tg-tpj}.svg"},
    {LVD_OPT_MODELS, LVD_AT(models), PAGE,
     .help = "a model by sha256 (or a unique prefix of 8+ hex digits) or by file path; repeatable (default: every "
             "model measured on this host)"},
    {.spell = "--nights", .arg = "N", .kind = LVD_OPT_INT, .lo = 1, .hi = 3650, LVD_AT(nights), PAGE,
     .def = LVD_STRINGIFY(EV_NIGHTS_DEFAULT),
     .help = "the newest N nights shown (UTC dates with a run or a pin decision, never counts of sessions or "
             "decisions): history and pin decisions"},
    {.spell = "--title", .arg = "TEXT", .kind = LVD_OPT_STR, LVD_AT(title), PAGE, .def = EV_TITLE_DEFAULT,
     .help = "the page title"},
    {.spell = "--note", .arg = "TEXT", .kind = LVD_OPT_STRS, LVD_AT(notes), PAGE,
     .help = "a line shown at the top of the page (repeatable; the nightly says there that a night was "
             "interrupted)"},
    {LVD_OPT_HOST, PAGE},
    {.spell = "--fleet", .kind = LVD_OPT_FLAG, LVD_AT(fleet), .form = LVD_FORM(1),
     .help = "print the fleet instead (every host of the store): per host its GPUs and winner per model, and the "
             "backend map (card x backend: median tg and pp ratio against the best other backend, with its 95 % "
             "interval across hosts and n hosts); a page of a store with several hosts ends with the same section"},
    {LVD_OPT_JSON, .help = "print what was written (with --fleet: the fleet) as JSON"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Writes the evidence page: per model, the engines and devices measured on this host (pp and tg "
             "medians with 95 % CI, deltas against the CPU and the best arm of another backend, samples kept and warm-up "
             "dropped, correctness), the recorded verdict with its rule, placement and launch line, failed and "
             "excluded arms with why, and the pin decisions; SVG charts beside the page (bars with CI whiskers for "
             "pp and tg, tg and pp across nights, against context depth, and tg per joule where energy was measured). The same store gives the same bytes; the page and its charts "
             "are written all or none.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, NULL}, {"--fleet", NULL}, {NULL, NULL}},
    .exits = "0 written, 1 nothing measured or cannot write, 2 usage, 3 a --model unknown or its file unreadable, 4 "
             "store error.",
    .examples = "lvd evidence --out docs/evidence/backend-selection.md --nights 30\n"
                "lvd evidence --fleet --store /srv/lvd/fleet.db",
};

/* The page of o from store s, written with its charts; the exit status. */
static int write_page(store *s, const options *o)
{
    lvd_err err = {{0}};
    ev_opts eo = {.title = o->title, .host = o->t.host, .models = o->models.v, .n_models = o->models.n,
                  .nights = (size_t)o->nights};
    ev_page page;
    int rc = ev_page_load(s, &eo, &page, &err);
    if (rc != 0)
        return lvd_tool_fail(TOOL, &err, rc == -2 ? LVD_EXIT_INPUT : LVD_EXIT_STORE);
    int code = LVD_EXIT_OK;
    if (!page.n_models && !page.pin.n_hist) {
        lvd_error(TOOL, "%s: nothing measured on host %s (lvd bench, or lvd store import)", store_path(s), page.host);
        ev_page_free(&page);
        return LVD_EXIT_FAIL;
    }
    page.notes = o->notes.v;
    page.n_notes = o->notes.n;
    ev_file *files;
    size_t n;
    ev_render_files(&page, o->out, &files, &n);
    if (ev_write_files(files, n, &err) != 0)
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_FAIL);
    else
        ev_written_print(stdout, &page, files, n, o->t.json);
    ev_files_free(files, n);
    ev_page_free(&page);
    return code;
}

int main(int argc, char **argv)
{
    options o = {0};
    lvd_opt_result r;
    store *s;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &r);
    if (code == 0 && (code = store_tool_open(TOOL, o.t.store, STORE_OPEN_READONLY, &s)) == LVD_EXIT_OK) {
        code = o.fleet ? ev_fleet_print(stdout, TOOL, s, o.t.json) : write_page(s, &o);
        store_close(s);
    }
    lvd_opt_free(&tool, &o);
    return code < 0 ? LVD_EXIT_OK : code;
}
