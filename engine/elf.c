/* elf.c: DT_NEEDED and DT_RPATH/DT_RUNPATH from an ELF file (see elf.h).
 * Every offset and size read from the file is checked against the file's
 * size and a bound before it is used; only the ELF header, the section
 * header table (one pread), the dynamic section and its string table are read,
 * never the whole file. Not for ELF files that lack section headers (stripped with
 * sstrip): those report no dynamic section. */
#include "engine/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SECTIONS 65535
#define MAX_DYNAMIC ((uint64_t)1 << 20) /* a real dynamic section is a few hundred bytes */
#define MAX_DYNSTR ((uint64_t)16 << 20)
#define MAX_ENTRIES 4096
enum { SHT_DYNAMIC_ = 6, DT_NEEDED_ = 1, DT_RPATH_ = 15, DT_RUNPATH_ = 29 };

typedef struct elf_file {
    int fd;
    uint64_t size;
    int is64, be;
} elf_file;

/* The n-byte (1 to 8) unsigned integer at p, big-endian when be. */
static uint64_t get(const unsigned char *p, size_t n, int be)
{
    uint64_t v = 0;
    if (be)
        for (size_t i = 0; i < n; i++)
            v = v << 8 | p[i];
    else
        for (size_t i = n; i-- > 0;)
            v = v << 8 | p[i];
    return v;
}

/* Reads n bytes at off into buf: 0, or -1 when they are not all in the file. */
static int read_at(const elf_file *f, uint64_t off, void *buf, size_t n)
{
    if (off > f->size || n > f->size - off)
        return -1;
    return pread(f->fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* Reads a whole section of at most max bytes into a malloc'd buffer; NULL
 * when it is not all in the file (checked before the allocation: a header's
 * sizes are untrusted, and 65535 headers of 65535 bytes are 4 GiB). */
static unsigned char *load(const elf_file *f, uint64_t off, uint64_t size, uint64_t max)
{
    if (size > max || off > f->size || size > f->size - off)
        return NULL;
    unsigned char *buf = lvd_xmalloc(size + 1);
    if (read_at(f, off, buf, (size_t)size)) {
        free(buf);
        return NULL;
    }
    buf[size] = '\0';
    return buf;
}

/* Section header idx of the table sht (n headers of shentsize bytes, read
 * whole): its type, offset, size and link. */
static int section(const elf_file *f, const unsigned char *sht, uint64_t n, uint64_t shentsize, uint64_t idx,
                   uint64_t *type, uint64_t *off, uint64_t *size, uint64_t *link)
{
    size_t need = f->is64 ? 64 : 40;
    if (shentsize < need || idx >= n)
        return -1;
    const unsigned char *sh = sht + idx * shentsize;
    *type = get(sh + 4, 4, f->be);
    *link = get(sh + (f->is64 ? 40 : 24), 4, f->be);
    *off = f->is64 ? get(sh + 24, 8, f->be) : get(sh + 16, 4, f->be);
    *size = f->is64 ? get(sh + 32, 8, f->be) : get(sh + 20, 4, f->be);
    return 0;
}

/* The string at off in strtab, or NULL when it is not NUL-terminated inside it. */
static const char *str_at(const unsigned char *strtab, uint64_t strsz, uint64_t off)
{
    if (off >= strsz || !memchr(strtab + off, '\0', (size_t)(strsz - off)))
        return NULL;
    return (const char *)strtab + off;
}

static void add_runpath(engine_elf_dyn *out, const char *s)
{
    size_t n;
    char **parts = lvd_split(s, ':', &n);
    for (size_t i = 0; i < n && out->n_runpath < MAX_ENTRIES; i++)
        if (*parts[i])
            lvd_strv_push(&out->runpath, &out->n_runpath, lvd_xstrdup(parts[i]));
    lvd_strv_free(parts);
}

static int entries(const unsigned char *dyn, uint64_t dynsz, const unsigned char *strtab, uint64_t strsz,
                   const elf_file *f, engine_elf_dyn *out)
{
    size_t w = f->is64 ? 8 : 4;
    for (uint64_t at = 0; at + 2 * w <= dynsz; at += 2 * w) {
        uint64_t tag = get(dyn + at, w, f->be), val = get(dyn + at + w, w, f->be);
        if (tag == 0)
            break;
        if (tag != DT_NEEDED_ && tag != DT_RPATH_ && tag != DT_RUNPATH_)
            continue;
        const char *s = str_at(strtab, strsz, val);
        if (!s)
            return -1;
        if (tag == DT_NEEDED_ && out->n_needed < MAX_ENTRIES)
            lvd_strv_push(&out->needed, &out->n_needed, lvd_xstrdup(s));
        else if (tag != DT_NEEDED_)
            add_runpath(out, s);
    }
    return 0;
}

/* The dynamic section of the section header table sht (n headers): 0 read,
 * 1 none, -1 malformed. */
static int dynamic_in(const elf_file *f, const unsigned char *sht, uint64_t n, uint64_t shentsize,
                      engine_elf_dyn *out)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t type, off, size, link, stype, soff, ssize, slink;
        if (get(sht + i * shentsize + 4, 4, f->be) != SHT_DYNAMIC_) /* sh_type; shentsize was checked */
            continue;
        if (section(f, sht, n, shentsize, i, &type, &off, &size, &link))
            return -1;
        if (section(f, sht, n, shentsize, link, &stype, &soff, &ssize, &slink))
            return -1;
        unsigned char *dyn = load(f, off, size, MAX_DYNAMIC);
        unsigned char *str = dyn ? load(f, soff, ssize, MAX_DYNSTR) : NULL;
        int rc = dyn && str ? entries(dyn, size, str, ssize, f, out) : -1;
        free(dyn);
        free(str);
        return rc;
    }
    return 1;
}

/* The dynamic section of f: 0 read, 1 none, -1 malformed. The section
 * header table is read in one pread (a few KiB), not a header at a time. */
static int dynamic(const elf_file *f, const unsigned char *eh, engine_elf_dyn *out)
{
    uint64_t shoff = f->is64 ? get(eh + 40, 8, f->be) : get(eh + 32, 4, f->be);
    uint64_t shentsize = get(eh + (f->is64 ? 58 : 46), 2, f->be);
    uint64_t shnum = get(eh + (f->is64 ? 60 : 48), 2, f->be);
    if (shoff == 0 || shnum == 0)
        return 1;
    if (shentsize < (f->is64 ? 64u : 40u))
        return -1;
    uint64_t n = shnum < MAX_SECTIONS ? shnum : MAX_SECTIONS; /* shentsize, shnum < 2^16: no overflow */
    unsigned char *sht = load(f, shoff, n * shentsize, n * shentsize);
    if (!sht)
        return -1;
    int rc = dynamic_in(f, sht, n, shentsize, out);
    free(sht);
    return rc;
}

int engine_elf_read(const char *path, engine_elf_dyn *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    elf_file f = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0)
        return lvd_errf(err, "%s: %s", path, strerror(errno));
    struct stat st;
    unsigned char eh[64];
    int rc = 1;
    if (fstat(f.fd, &st) != 0) {
        rc = lvd_errf(err, "%s: %s", path, strerror(errno));
        goto out;
    }
    f.size = (uint64_t)st.st_size;
    /* the header in one read: 64 bytes (ELF64's), or ELF32's 52 of a smaller file */
    if (!S_ISREG(st.st_mode) || read_at(&f, 0, eh, f.size < 64 ? 52 : 64) || memcmp(eh, "\177ELF", 4) ||
        (eh[4] != 1 && eh[4] != 2) || (eh[5] != 1 && eh[5] != 2))
        goto out; /* not ELF */
    f.is64 = eh[4] == 2;
    f.be = eh[5] == 2;
    if (f.is64 && f.size < 64)
        goto out;
    rc = dynamic(&f, eh, out);
    if (rc < 0) {
        engine_elf_free(out);
        lvd_errf(err, "%s: malformed ELF dynamic section", path);
    }
out:
    close(f.fd);
    return rc;
}

void engine_elf_free(engine_elf_dyn *d)
{
    lvd_strv_free(d->needed);
    lvd_strv_free(d->runpath);
    memset(d, 0, sizeof *d);
}
