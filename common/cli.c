/* cli.c: error lines, colour, TTY progress, JSON output and --host, the
 * option whose value acts beyond its field (opening the tools' store:
 * store/store_tool.c). */
#include "common/cli.h"

#include "common/opt_vocab.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lvd_color_enabled(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    if (nc)
        return 0;
    const char *term = getenv("TERM");
    if (!term || !strcmp(term, "dumb"))
        return 0;
    return isatty(fileno(f));
}

const char *lvd_ansi(FILE *f, const char *seq)
{
    return lvd_color_enabled(f) ? seq : "";
}

static lvd_sb *diag_sink; /* lvd_diag_capture's buffer, else NULL: stderr */

void lvd_diag_capture(lvd_sb *sink)
{
    diag_sink = sink;
}

/* One diagnostic line, written whole (to the capture buffer when one is set);
 * colored as stderr would be either way. */
static void vline(const char *tool, const char *kind, const char *color, const char *fmt, va_list ap)
{
    lvd_sb line = {0};
    lvd_sb_addf(&line, "%s: %s%s:%s ", tool, lvd_ansi(stderr, color), kind, lvd_ansi(stderr, "\033[0m"));
    lvd_sb_vaddf(&line, fmt, ap);
    lvd_sb_addc(&line, '\n');
    if (diag_sink)
        lvd_sb_add(diag_sink, line.buf, line.len);
    else
        fwrite(line.buf, 1, line.len, stderr);
    lvd_sb_free(&line);
}

void lvd_error(const char *tool, const char *fmt, ...)
{
    lvd_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vline(tool, "error", "\033[1;31m", fmt, ap);
    va_end(ap);
}

void lvd_warn(const char *tool, const char *fmt, ...)
{
    lvd_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vline(tool, "warning", "\033[1;33m", fmt, ap);
    va_end(ap);
}

int lvd_usage_error(const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(tool, "error", "\033[1;31m", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help'.\n", tool);
    return 2;
}

static int progress_shown;

int lvd_progress_enabled(void)
{
    if (getenv("LVD_NO_PROGRESS"))
        return 0;
    return isatty(STDERR_FILENO);
}

void lvd_progress(const char *fmt, ...)
{
    if (!lvd_progress_enabled())
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_shown = 1;
}

void lvd_progress_done(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        progress_shown = 0;
    }
}

void lvd_json_emit(FILE *f, cJSON *value)
{
    char *s = cJSON_Print(value);
    if (s) {
        fputs(s, f);
        fputc('\n', f);
        free(s);
    }
    cJSON_Delete(value);
}

int lvd_opt_host(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    if (!*arg)
        return lvd_errf(err, "wants a name");
    *(const char **)field = arg;
    lvd_hostname_set(arg); /* the engines known by name are that host's (store/store_engines.c) */
    return 0;
}

int lvd_tool_fail(const char *tool, const lvd_err *err, int code)
{
    lvd_error(tool, "%s", err->msg);
    return code;
}
