/* help.c: the option lines of a llama.cpp tool's --help and the record a
 * probe keeps of them (rules in help.h). The only I/O is running
 * `DIR/TOOL --help`. */
#include "engine/help.h"

#include "common/proc.h"
#include "engine/argv.h"
#include "engine/family.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HELP_RECORD_VERSION "lvd-flags 5" /* 4: long-only options in a long column (ik_llama.cpp);
                                             5: ik_llama.cpp's -fmoe, -no-fmoe, -rtr */
#define HELP_TIMEOUT_MS 10000
#define HELP_CAPTURE ((size_t)1 << 20)

static const char *const tool_names[ENGINE_TOOL_COUNT] = {"llama-bench", "llama-server", "llama-perplexity",
                                                         "llama-fit-params"};

const char *engine_tool_name(engine_tool t)
{
    return t < ENGINE_TOOL_COUNT ? tool_names[t] : "?";
}

/* A flag name: '-' then a letter, or "--" then a letter. */
static int is_name(const char *s)
{
    if (s[0] != '-')
        return 0;
    s += s[1] == '-' ? 2 : 1;
    return isalpha((unsigned char)*s);
}

/* The option of line (one line, no newline) into o; 0, or -1 when the line
 * is not an option line. */
static int parse_line(const char *line, size_t len, engine_opt *o)
{
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    /* ik_llama.cpp's common lists a long-only option in its long names'
     * column: "         --chunks N" (9 spaces) */
    int long_column = i == 9 && i + 2 < len && line[i + 1] == '-';
    if ((i > 4 && !long_column) || i >= len || !is_name(line + i))
        return -1;
    memset(o, 0, sizeof *o);
    size_t gap = 0;
    while (i < len) {
        size_t w = i;
        while (w < len && line[w] != ' ' && line[w] != '\t')
            w++;
        char *word = lvd_xstrndup(line + i, w - i);
        int name = is_name(word);
        size_t wl = strlen(word);
        while (name && wl > 2 && word[wl - 1] == ',') /* "-fa," of "-fa, --flash-attn" */
            word[--wl] = '\0';
        if (!name) {
            if (gap == 1)
                o->arg = word;
            else
                free(word); /* two spaces or more: the description */
            break;
        }
        lvd_strv_push(&o->names, &o->n_names, word);
        gap = 0;
        while (w < len && (line[w] == ' ' || line[w] == '\t'))
            w++, gap++;
        i = w;
    }
    if (!o->arg)
        o->arg = lvd_xstrdup("");
    return 0;
}

static void opt_free(engine_opt *o)
{
    lvd_strv_free(o->names);
    free(o->arg);
}

static int opt_has(const engine_opt *o, const char *name)
{
    for (size_t i = 0; i < o->n_names; i++)
        if (!strcmp(o->names[i], name))
            return 1;
    return 0;
}

/* The option lines of text (one tool's) added to h; keep: only those naming
 * a flag of the vocabulary or a word that tells the family (family.h). */
static void add_lines(engine_help *h, engine_tool tool, const char *text, int keep_vocabulary)
{
    for (const char *s = text; s && *s;) {
        size_t len = strcspn(s, "\r\n");
        engine_opt o;
        if (parse_line(s, len, &o) == 0) {
            int keep = !keep_vocabulary;
            for (size_t i = 0; i < o.n_names && !keep; i++)
                keep = engine_argv_vocabulary(o.names[i]) || engine_family_word(o.names[i]);
            if (opt_has(&o, "-m") || opt_has(&o, "--model"))
                h->known[tool] = 1;
            o.tool = tool;
            if (keep) {
                h->opts = lvd_xrealloc(h->opts, (h->n + 1) * sizeof *h->opts);
                h->opts[h->n++] = o;
            } else {
                opt_free(&o);
            }
        }
        s += len;
        s += strspn(s, "\r\n");
    }
}

void engine_help_parse(engine_help *h, engine_tool tool, const char *text)
{
    add_lines(h, tool, text, 0);
}

void engine_help_read(const char *dir, engine_help *h)
{
    memset(h, 0, sizeof *h);
    for (int t = 0; t < ENGINE_TOOL_COUNT; t++) {
        char *bin = lvd_xasprintf("%s/%s", dir, tool_names[t]);
        const char *argv[] = {bin, "--help", NULL};
        proc_spec spec = {.argv = argv, .timeout_ms = HELP_TIMEOUT_MS, .max_capture = HELP_CAPTURE};
        proc_result res;
        lvd_err err = {{0}};
        if (access(bin, X_OK) == 0 && proc_run(&spec, &res, &err) == 0) {
            if (res.spawned && !res.timed_out) {
                add_lines(h, (engine_tool)t, lvd_sb_str(&res.out), 1);
                add_lines(h, (engine_tool)t, lvd_sb_str(&res.err), 1);
            }
            proc_result_free(&res);
        }
        free(bin);
    }
}

char *engine_help_record(const engine_help *h)
{
    lvd_sb sb = {0};
    lvd_sb_adds(&sb, HELP_RECORD_VERSION "\n");
    for (int t = 0; t < ENGINE_TOOL_COUNT; t++) {
        if (!h->known[t])
            continue;
        lvd_sb_addf(&sb, "[%s]\n", tool_names[t]);
        for (size_t i = 0; i < h->n; i++) {
            const engine_opt *o = &h->opts[i];
            int keep = 0;
            for (size_t k = 0; k < o->n_names && !keep; k++)
                keep = engine_argv_vocabulary(o->names[k]);
            if (o->tool != (engine_tool)t || !keep)
                continue;
            for (size_t k = 0; k < o->n_names; k++)
                lvd_sb_addf(&sb, "%s%s", k ? " " : "", o->names[k]);
            lvd_sb_addf(&sb, "%s%s\n", *o->arg ? " " : "", o->arg);
        }
    }
    return lvd_sb_detach(&sb);
}

int engine_help_current(const char *record)
{
    size_t vl = strlen(HELP_RECORD_VERSION);
    return record && !strncmp(record, HELP_RECORD_VERSION, vl) && (record[vl] == '\n' || !record[vl]);
}

void engine_help_load(const char *record, engine_help *h)
{
    memset(h, 0, sizeof *h);
    size_t vl = strlen(HELP_RECORD_VERSION);
    if (!engine_help_current(record))
        return;
    int tool = -1;
    for (const char *s = record + vl; *s;) {
        s += strspn(s, "\n");
        size_t len = strcspn(s, "\n");
        if (len > 2 && s[0] == '[' && s[len - 1] == ']') {
            tool = -1;
            for (int t = 0; t < ENGINE_TOOL_COUNT; t++)
                if (strlen(tool_names[t]) == len - 2 && !strncmp(s + 1, tool_names[t], len - 2))
                    tool = t;
            if (tool >= 0)
                h->known[tool] = 1;
        } else if (tool >= 0 && len) {
            char *line = lvd_xstrndup(s, len);
            add_lines(h, (engine_tool)tool, line, 0);
            free(line);
        }
        s += len;
    }
}

void engine_help_recorded(const char *dir, const char *record, engine_help *h)
{
    if (record)
        engine_help_load(record, h);
    else
        engine_help_read(dir, h);
}

const engine_opt *engine_help_opt(const engine_help *h, engine_tool tool, const char *name)
{
    for (size_t i = 0; h && i < h->n; i++)
        if (h->opts[i].tool == tool && opt_has(&h->opts[i], name))
            return &h->opts[i];
    return NULL;
}

void engine_help_free(engine_help *h)
{
    for (size_t i = 0; h && i < h->n; i++)
        opt_free(&h->opts[i]);
    if (h) {
        free(h->opts);
        memset(h, 0, sizeof *h);
    }
}
