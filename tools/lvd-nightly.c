/* lvd-nightly.c: the nightly job's command line (the job: nightly/job.h);
 * scripts/nightly builds the project and runs this. */
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "nightly/job.h"

typedef struct options {
    lvd_tool_opts t; /* --store, --json */
    const char *config;
} options;

static const lvd_opt table[] = {
    {.spell = "--config", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(config),
     .help = "the job's configuration (`key = value` lines; see lvd-nightly(1)). Without it: the bundled tiny model, the "
             "shipped pin file (never rewritten), the engines already registered"},
    {LVD_OPT_STORE_AS(LVD_OPT_STORE_HELP "; when a PostgreSQL store cannot be opened, the night records into the "
                      "local fallback_store and says so")},
    {LVD_OPT_JSON, .help = "print the steps and their outcomes as JSON"},
    {0},
};

static const lvd_opt_tool tool = {
    .name = "lvd-nightly",
    .about = "The main job, for a cron line or a systemd timer: takes a lock, then fetches the pinned and candidate "
             "builds (lvd fetch), finds the engines on the box (lvd probe --discover), probes every engine (lvd probe), checks each device against the CPU (lvd check), "
             "benchmarks every engine and device (lvd bench), records the verdicts (lvd select --record), decides "
             "the pin (lvd pin), re-measures undecided comparisons with the budget left, hunts a regression the pin "
             "names (lvd bisect) and writes the evidence page (lvd evidence). A step that fails is logged and the "
             "job goes on with what it has.\n\n"
             "It holds the device lock (STORE.devices.lock, or $LVD_LOCK_DIR/devices.lock) all night; its steps die "
             "with it, whatever ends it. A night that never ended is resumed by the next one (its session "
             "continued; see docs/nightly.md).",
    .opts = table,
    .exits = "0 every step succeeded; 5 the job finished but some step failed or was partial (see the log); 1 no "
             "evidence page could be written; 2 usage; 3 bad config; 8 another nightly holds the lock, or the "
             "devices stayed in use past device_wait (the line names the holder's pid).",
    .examples = "30 2 * * *  /opt/llama-verdict/scripts/nightly --config ~/verdict/nightly.conf  # crontab, 02:30",
};

int main(int argc, char **argv)
{
    options o = {0};
    lvd_opt_result r;
    int rc = lvd_opt_parse(&tool, argc, argv, &o, &r);
    if (rc)
        return rc < 0 ? LVD_EXIT_OK : rc;
    night_job_opts jo = {.tool = tool.name, .config = o.config, .store = o.t.store, .json = o.t.json};
    return night_job(&jo);
}
