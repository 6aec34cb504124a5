/* write.c: the evidence page and its charts as files, rendered to memory
 * and written all or none (see render.h). Not for rendering itself. */
#include "evidence/energy.h"
#include "evidence/format.h"
#include "evidence/render.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void add_file(ev_file **v, size_t *n, char *path, lvd_sb *data)
{
    *v = lvd_xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[*n].path = path;
    (*v)[*n].len = data->len;
    (*v)[*n].data = lvd_sb_detach(data);
    (*n)++;
}

static char *beside(const char *dir, const char *name)
{
    return !strcmp(dir, ".") ? lvd_xstrdup(name) : lvd_xasprintf("%s/%s", dir, name);
}

void ev_render_files(const ev_page *p, const char *page_path, ev_file **files, size_t *n)
{
    *files = NULL;
    *n = 0;
    char *dir = ev_page_dir(page_path);
    static const char *const kinds[] = {"pp",       "tg",       "tg-history", "tg-tpj",
                                        "pp-depth", "tg-depth", "pp-history", "serve"};
    for (size_t i = 0; i < p->n_models; i++) {
        const ev_model *m = &p->models[i];
        ev_charts c;
        ev_model_charts(m, &c);
        int want[8] = {c.pp, c.tg, c.history, c.tpj, c.pp_depth, c.tg_depth, c.pp_history, c.serve};
        for (size_t k = 0; k < 8; k++) {
            if (!want[k])
                continue;
            lvd_sb sb = {0};
            if (k == 3)
                ev_svg_tpj(m, &sb);
            else if (k == 2)
                ev_svg_history(m, &sb);
            else if (k == 6)
                ev_svg_history_of(m, 0, &sb);
            else if (k == 7)
                ev_svg_serve(m, &sb);
            else if (k > 3)
                ev_svg_depth(m, k == 5, &sb);
            else
                ev_svg_bars(m, (int)k, &sb);
            char *name = ev_chart_name(page_path, m->sha256, kinds[k]);
            add_file(files, n, beside(dir, name), &sb);
            free(name);
        }
    }
    lvd_sb sb = {0};
    ev_render_markdown(p, page_path, &sb);
    add_file(files, n, lvd_xstrdup(page_path), &sb);
    free(dir);
}

void ev_files_free(ev_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(files[i].path);
        free(files[i].data);
    }
    free(files);
}

static char *staged(const char *path)
{
    return lvd_xasprintf("%s.lvd-new", path);
}

int ev_write_files(const ev_file *files, size_t n, lvd_err *err)
{
    if (!n)
        return 0;
    char *dir = ev_page_dir(files[n - 1].path);
    int rc = lvd_mkdir_p(dir, err);
    size_t written = 0;
    /* 1. every file complete and fsync'd beside its target */
    for (; rc == 0 && written < n; written++) {
        char *tmp = staged(files[written].path);
        rc = lvd_write_file_atomic(tmp, files[written].data, files[written].len, err);
        free(tmp);
        if (rc != 0)
            break;
    }
    if (rc != 0) {
        for (size_t i = 0; i < written; i++) {
            char *tmp = staged(files[i].path);
            unlink(tmp);
            free(tmp);
        }
        free(dir);
        return -1;
    }
    /* 2. into place, the page last */
    for (size_t i = 0; i < n; i++) {
        char *tmp = staged(files[i].path);
        if (rename(tmp, files[i].path) != 0 && rc == 0)
            rc = lvd_errf(err, "%s: cannot rename into place: %s", files[i].path, strerror(errno));
        if (rc != 0)
            unlink(tmp);
        free(tmp);
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
    return rc;
}
