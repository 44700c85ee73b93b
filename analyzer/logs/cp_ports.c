/* cp_ports.c - RDMA port snapshots (see cp_ports.h). */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cp_grow.h"
#include "cp_jsonfile.h"
#include "cp_path.h"
#include "cp_jsonout.h"
#include "cp_ports.h"

#define MAX_COUNTERS 256
#define TEXT_MAX 256

/* Error counters (IB port counters that count faults; a rise during a step
 * means a bad cable, port or switch port).  port_xmit_wait counts
 * congestion and the data counters traffic: neither is a fault. */
static const char *const error_counters[] = {
    "symbol_error",
    "link_downed",
    "link_error_recovery",
    "port_rcv_errors",
    "port_rcv_remote_physical_errors",
    "port_rcv_switch_relay_errors",
    "port_xmit_discards",
    "port_xmit_constraint_errors",
    "port_rcv_constraint_errors",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "VL15_dropped",
};

int cp_ports_error_counter(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof error_counters / sizeof error_counters[0]; i++)
        if (strcmp(name, error_counters[i]) == 0)
            return 1;
    return 0;
}

void cp_ports_node_name(char *buf, size_t len)
{
    static const char *const vars[] = {"COLLPROF_NODE", "SLURMD_NODENAME"};
    char host[256];
    size_t i;

    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            snprintf(buf, len, "%s", v);
            return;
        }
    }
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    host[strcspn(host, ".")] = '\0';
    snprintf(buf, len, "%s", host);
}

void cp_ports_clear(struct cp_ports_snapshot *snap)
{
    size_t i;

    for (i = 0; i < snap->nports; i++)
        free(snap->ports[i].counters);
    free(snap->ports);
    memset(snap, 0, sizeof *snap);
}

static void add_problem(struct cp_port *p, const char *what, const char *why)
{
    size_t n = strlen(p->problems);

    snprintf(p->problems + n, sizeof p->problems - n, "%s%s: %s",
             n ? "; " : "", what, why);
}

/* The first line of a small text file into buf, trailing space cut.
 * 0, or -1 with errno. */
static int read_text(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    ssize_t n;
    size_t m;
    int saved;

    if (fd < 0)
        return -1;
    n = read(fd, buf, len - 1);
    saved = errno;
    close(fd);
    if (n < 0) {
        errno = saved;
        return -1;
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    for (m = strlen(buf); m > 0 && (buf[m - 1] == ' ' || buf[m - 1] == '\t');
         m--)
        buf[m - 1] = '\0';
    return 0;
}

/* "4: ACTIVE" -> "ACTIVE" */
static void after_colon(char *dst, size_t len, const char *text)
{
    const char *c = strchr(text, ':');

    c = c ? c + 1 : text;
    while (*c == ' ')
        c++;
    snprintf(dst, len, "%.*s", (int)len - 1, c);
}

/* "200 Gb/sec (4X HDR)": Gb/s, lanes ("4X"), per-lane speed. */
static void parse_rate(struct cp_port *p)
{
    char *end;
    double gbps = strtod(p->rate, &end);
    const char *paren = strchr(p->rate, '(');

    p->rate_Gbps = end != p->rate && gbps >= 0 ? gbps : NAN;
    if (paren) {
        int lanes = atoi(paren + 1);
        if (lanes > 0 && strchr(paren, 'X')) {
            p->active_width = lanes;
            if (isfinite(p->rate_Gbps))
                p->lane_Gbps = p->rate_Gbps / lanes;
        }
    }
}

/* dir/name into out (PATH_BYTES); -1 when it does not fit. */
#define PATH_BYTES 4096
static int join(char *out, const char *dir, const char *name)
{
    int n = snprintf(out, PATH_BYTES, "%s/%s", dir, name);
    return n < 0 || n >= PATH_BYTES ? -1 : 0;
}

static int compare_counters(const void *a, const void *b)
{
    return strcmp(((const struct cp_port_counter *)a)->name,
                  ((const struct cp_port_counter *)b)->name);
}

/* Room for one more counter of p (the array doubles), zeroed.  0, or -1
 * out of memory. */
static int new_counter(struct cp_port *p)
{
    if (cp_grow((void **)&p->counters, &p->counters_cap, p->ncounters,
                sizeof *p->counters) < 0)
        return -1;
    memset(&p->counters[p->ncounters], 0, sizeof p->counters[0]);
    return 0;
}

static int read_counters(struct cp_port *p, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int rc = -1;

    if (!d) {
        add_problem(p, "counters", errno == ENOENT ? "no counters folder"
                                                   : strerror(errno));
        return 0;
    }
    p->have_counters = 1;
    while ((de = readdir(d)) != NULL) {
        char path[PATH_BYTES], text[TEXT_MAX], *end;
        unsigned long long v;
        if (de->d_name[0] == '.')
            continue;
        if (p->ncounters >= MAX_COUNTERS)
            break;
        if (join(path, dir, de->d_name) < 0 ||
            read_text(path, text, sizeof text) < 0) {
            add_problem(p, de->d_name, strerror(errno));
            continue;
        }
        errno = 0;
        v = strtoull(text, &end, 10);
        if (end == text || errno != 0) {
            add_problem(p, de->d_name, "not a number");
            continue;
        }
        if (new_counter(p) < 0)
            goto out;
        if (strlen(de->d_name) >= sizeof p->counters[0].name)
            continue; /* no counter has such a name */
        memcpy(p->counters[p->ncounters].name, de->d_name,
               strlen(de->d_name) + 1);
        p->counters[p->ncounters].value = v;
        p->ncounters++;
    }
    if (p->ncounters)
        qsort(p->counters, p->ncounters, sizeof *p->counters,
              compare_counters);
    rc = 0;
out:
    closedir(d);
    return rc;
}

/* One more port of snap (the array doubles).  NULL out of memory. */
static struct cp_port *new_port(struct cp_ports_snapshot *snap,
                                const char *device, unsigned port)
{
    struct cp_port *p;

    if (cp_grow((void **)&snap->ports, &snap->cap, snap->nports,
                sizeof *snap->ports) < 0)
        return NULL;
    p = &snap->ports[snap->nports++];
    memset(p, 0, sizeof *p);
    snprintf(p->device, sizeof p->device, "%s", device);
    p->port = port;
    p->rate_Gbps = NAN;
    p->lane_Gbps = NAN;
    return p;
}

static int read_port(struct cp_ports_snapshot *snap, const char *device,
                     const char *portdir, unsigned port)
{
    static const struct {
        const char *file;
        size_t offset, len;
        int after_colon;
    } fields[] = {
        {"state", offsetof(struct cp_port, state), 32, 1},
        {"phys_state", offsetof(struct cp_port, phys_state), 32, 1},
        {"link_layer", offsetof(struct cp_port, link_layer), 32, 0},
        {"rate", offsetof(struct cp_port, rate), 64, 0},
    };
    struct cp_port *p = new_port(snap, device, port);
    char path[PATH_BYTES], text[TEXT_MAX];
    size_t i;

    if (!p)
        return -1;
    for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char *dst = (char *)p + fields[i].offset;
        if (join(path, portdir, fields[i].file) < 0 ||
            read_text(path, text, sizeof text) < 0) {
            add_problem(p, fields[i].file, strerror(errno));
            continue;
        }
        if (fields[i].after_colon)
            after_colon(dst, fields[i].len, text);
        else
            snprintf(dst, fields[i].len, "%.*s", (int)fields[i].len - 1,
                     text);
    }
    parse_rate(p);
    if (join(path, portdir, "counters") < 0)
        return 0;
    return read_counters(p, path);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a folder, sorted (names owned by the caller: free each
 * and the array).  -1 with errno. */
static int list_dir(const char *path, char ***out, size_t *n)
{
    DIR *d = opendir(path);
    struct dirent *de;
    char **names = NULL;
    size_t count = 0;

    *out = NULL;
    *n = 0;
    if (!d)
        return -1;
    while ((de = readdir(d)) != NULL) {
        char **bigger;
        if (de->d_name[0] == '.')
            continue;
        bigger = realloc(names, (count + 1) * sizeof *bigger);
        if (!bigger || !(bigger[count] = strdup(de->d_name))) {
            names = bigger ? bigger : names;
            while (count > 0)
                free(names[--count]);
            free(names);
            closedir(d);
            errno = ENOMEM;
            return -1;
        }
        names = bigger;
        count++;
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    *out = names;
    *n = count;
    return 0;
}

static void free_names(char **names, size_t n)
{
    while (n > 0)
        free(names[--n]);
    free(names);
}

/* ---- libibverbs, through dlopen ------------------------------------------- */

/* ibv_port_attr as rdma-core lays it out (stable ABI): the fields up to
 * link_layer; the buffer handed to ibv_query_port is larger than any
 * version's struct. */
#define VERBS_STATE 0
#define VERBS_ACTIVE_WIDTH 43
#define VERBS_ACTIVE_SPEED 44
#define VERBS_PHYS_STATE 45
#define VERBS_LINK_LAYER 46

struct verbs {
    void *lib;
    void **(*get_device_list)(int *n);
    void (*free_device_list)(void **list);
    const char *(*get_device_name)(void *dev);
    void *(*open_device)(void *dev);
    int (*close_device)(void *ctx);
    int (*query_port)(void *ctx, uint8_t port, void *attr);
};

static int verbs_load(struct verbs *v)
{
    memset(v, 0, sizeof *v);
    v->lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!v->lib)
        return -1;
    *(void **)&v->get_device_list = dlsym(v->lib, "ibv_get_device_list");
    *(void **)&v->free_device_list = dlsym(v->lib, "ibv_free_device_list");
    *(void **)&v->get_device_name = dlsym(v->lib, "ibv_get_device_name");
    *(void **)&v->open_device = dlsym(v->lib, "ibv_open_device");
    *(void **)&v->close_device = dlsym(v->lib, "ibv_close_device");
    *(void **)&v->query_port = dlsym(v->lib, "ibv_query_port");
    if (!v->get_device_list || !v->free_device_list || !v->get_device_name ||
        !v->open_device || !v->close_device || !v->query_port) {
        dlclose(v->lib);
        v->lib = NULL;
        return -1;
    }
    return 0;
}

static const char *verbs_state_name(unsigned s)
{
    static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED",
                                        "ACTIVE", "ACTIVE_DEFER"};
    return s < sizeof names / sizeof names[0] ? names[s] : "";
}

static int verbs_width(unsigned w)
{
    switch (w) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
    }
}

static double verbs_speed(unsigned s)
{
    switch (s) {
    case 1: return 2.5;   /* SDR */
    case 2: return 5.0;   /* DDR */
    case 4: return 10.0;  /* QDR (and FDR10's nominal) */
    case 8: return 10.0;  /* FDR10 */
    case 16: return 14.0; /* FDR */
    case 32: return 25.0; /* EDR */
    case 64: return 50.0; /* HDR */
    case 128: return 100.0; /* NDR */
    case 256: return 200.0; /* XDR */
    default: return NAN;
    }
}

/* Fill the ports of snap that verbs knows (same device name and port). */
static void verbs_fill(struct cp_ports_snapshot *snap)
{
    struct verbs v;
    void **list;
    int n = 0, i;
    size_t k;

    if (verbs_load(&v) < 0)
        return;
    snap->verbs = 1;
    list = v.get_device_list(&n);
    for (i = 0; list && i < n; i++) {
        const char *name = v.get_device_name(list[i]);
        void *ctx;
        if (!name)
            continue;
        ctx = v.open_device(list[i]);
        if (!ctx)
            continue;
        for (k = 0; k < snap->nports; k++) {
            struct cp_port *p = &snap->ports[k];
            unsigned char attr[512];
            if (strcmp(p->device, name) != 0 || p->port > 255)
                continue;
            memset(attr, 0, sizeof attr);
            if (v.query_port(ctx, (uint8_t)p->port, attr) != 0)
                continue;
            p->from_verbs = 1;
            snprintf(p->state, sizeof p->state, "%s",
                     verbs_state_name(attr[VERBS_STATE]));
            if (verbs_width(attr[VERBS_ACTIVE_WIDTH]))
                p->active_width = verbs_width(attr[VERBS_ACTIVE_WIDTH]);
            if (isfinite(verbs_speed(attr[VERBS_ACTIVE_SPEED])))
                p->lane_Gbps = verbs_speed(attr[VERBS_ACTIVE_SPEED]);
            if (!p->link_layer[0])
                snprintf(p->link_layer, sizeof p->link_layer, "%s",
                         attr[VERBS_LINK_LAYER] == 2 ? "Ethernet"
                                                     : "InfiniBand");
            if (!isfinite(p->rate_Gbps) && p->active_width &&
                isfinite(p->lane_Gbps))
                p->rate_Gbps = p->active_width * p->lane_Gbps;
        }
        v.close_device(ctx);
    }
    if (list)
        v.free_device_list(list);
    dlclose(v.lib);
}

/* ---- taking one ---------------------------------------------------------- */

/* root with "%n" replaced by node. */
static void expand_root(char *out, size_t len, const char *root,
                        const char *node)
{
    size_t o = 0;

    for (; *root && o + 1 < len; root++) {
        if (root[0] == '%' && root[1] == 'n') {
            o += (size_t)snprintf(out + o, len - o, "%s", node);
            if (o >= len)
                o = len - 1;
            root++;
        } else {
            out[o++] = *root;
        }
    }
    out[o] = '\0';
}

int cp_ports_take(struct cp_ports_snapshot *snap, const char *node,
                  const char *when, const char *root, struct cp_error *err)
{
    char base[PATH_BYTES], **devices = NULL;
    size_t ndevices = 0, i;
    struct timespec ts;
    int rc = -1, real_sysfs;

    memset(snap, 0, sizeof *snap);
    if (!root)
        root = getenv("COLLPROF_SYSFS_ROOT");
    real_sysfs = !root || !*root;
    if (real_sysfs)
        root = "/sys";
    snprintf(snap->node, sizeof snap->node, "%s", node);
    snprintf(snap->when, sizeof snap->when, "%s", when);
    expand_root(snap->root, sizeof snap->root, root, node);
    clock_gettime(CLOCK_REALTIME, &ts);
    snap->time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (join(base, snap->root, "class/infiniband") < 0 ||
        list_dir(base, &devices, &ndevices) < 0) {
        if (errno == ENOMEM) {
            cp_error_set(err, NULL, -1, "out of memory");
            goto out;
        }
        rc = 0; /* no RDMA device here: an empty snapshot */
        goto out;
    }
    for (i = 0; i < ndevices; i++) {
        char devdir[PATH_BYTES], portsdir[PATH_BYTES], **ports = NULL;
        size_t nports = 0, k;
        if (join(devdir, base, devices[i]) < 0 ||
            join(portsdir, devdir, "ports") < 0)
            continue;
        if (list_dir(portsdir, &ports, &nports) < 0) {
            if (errno == ENOMEM) {
                cp_error_set(err, NULL, -1, "out of memory");
                goto out;
            }
            continue;
        }
        /* no more than a reader takes (a fake root may list any number) */
        for (k = 0; k < nports && snap->nports < CP_PORTS_MAX_PORTS; k++) {
            char portdir[PATH_BYTES], *end;
            unsigned long n = strtoul(ports[k], &end, 10);
            if (*end || end == ports[k] || join(portdir, portsdir, ports[k]) < 0)
                continue;
            if (read_port(snap, devices[i], portdir, (unsigned)n) < 0) {
                free_names(ports, nports);
                cp_error_set(err, NULL, -1, "out of memory");
                goto out;
            }
        }
        free_names(ports, nports);
    }
    if (real_sysfs)
        verbs_fill(snap);
    rc = 0;
out:
    free_names(devices, ndevices);
    if (rc < 0)
        cp_ports_clear(snap);
    return rc;
}

/* ---- JSON ------------------------------------------------------------------ */

json_t *cp_ports_to_json(const struct cp_ports_snapshot *snap)
{
    json_t *root = json_object(), *ports = json_array();
    size_t i, k;

    if (!root || !ports)
        goto fail;
    if (set(root, "schema", json_string(CP_PORTS_SCHEMA)) < 0 ||
        set(root, "node", json_string(snap->node)) < 0 ||
        set(root, "when", json_string(snap->when)) < 0 ||
        set(root, "time_ns", json_integer(snap->time_ns)) < 0 ||
        set(root, "sysfs_root", json_string(snap->root)) < 0 ||
        set(root, "verbs", json_boolean(snap->verbs)) < 0)
        goto fail;
    for (i = 0; i < snap->nports; i++) {
        const struct cp_port *p = &snap->ports[i];
        json_t *o = json_object(), *c = json_object();
        if (!o || !c || json_array_append_new(ports, o) < 0) {
            json_decref(c);
            goto fail;
        }
        for (k = 0; k < p->ncounters; k++)
            if (set(c, p->counters[k].name,
                    json_integer((json_int_t)p->counters[k].value)) < 0) {
                json_decref(c);
                goto fail;
            }
        if (!p->have_counters) {
            json_decref(c);
            c = json_null();
        }
        /* set() takes c whether it succeeds or not */
        if (set(o, "device", json_string(p->device)) < 0 ||
            set(o, "port", json_integer(p->port)) < 0 ||
            set(o, "state", json_string(p->state)) < 0 ||
            set(o, "phys_state", json_string(p->phys_state)) < 0 ||
            set(o, "link_layer", json_string(p->link_layer)) < 0 ||
            set(o, "rate", json_string(p->rate)) < 0 ||
            set(o, "rate_Gbps", jnum(p->rate_Gbps)) < 0 ||
            set(o, "active_width",
                p->active_width ? json_integer(p->active_width)
                                : json_null()) < 0 ||
            set(o, "lane_Gbps", jnum(p->lane_Gbps)) < 0 ||
            set(o, "from_verbs", json_boolean(p->from_verbs)) < 0) {
            json_decref(c);
            goto fail;
        }
        if (set(o, "counters", c) < 0 ||
            set(o, "problems", json_string(p->problems)) < 0)
            goto fail;
    }
    if (set(root, "ports", ports) < 0) {
        ports = NULL;
        goto fail;
    }
    return root;
fail:
    json_decref(root);
    json_decref(ports);
    return NULL;
}

static void copy_string(char *dst, size_t len, const json_t *o,
                        const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    snprintf(dst, len, "%s", s ? s : "");
}

static double get_number(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : NAN;
}

int cp_ports_from_json(const json_t *j, struct cp_ports_snapshot *snap,
                       struct cp_error *err)
{
    const json_t *ports, *o;
    const char *schema = json_string_value(json_object_get(j, "schema"));
    size_t i;

    memset(snap, 0, sizeof *snap);
    if (!json_is_object(j) || !schema || strcmp(schema, CP_PORTS_SCHEMA) != 0) {
        return cp_errorf(err, "not a port snapshot (schema %s)",
                         CP_PORTS_SCHEMA);
    }
    copy_string(snap->node, sizeof snap->node, j, "node");
    copy_string(snap->when, sizeof snap->when, j, "when");
    copy_string(snap->root, sizeof snap->root, j, "sysfs_root");
    snap->time_ns = json_integer_value(json_object_get(j, "time_ns"));
    snap->verbs = json_is_true(json_object_get(j, "verbs"));
    ports = json_object_get(j, "ports");
    if (json_array_size(ports) > CP_PORTS_MAX_PORTS) {
        return cp_errorf(err, "%zu ports, more than a snapshot may list (%u)",
                         json_array_size(ports), CP_PORTS_MAX_PORTS);
    }
    json_array_foreach(ports, i, o) {
        const json_t *c = json_object_get(o, "counters"), *v;
        const char *name;
        struct cp_port *p;
        json_int_t port = json_integer_value(json_object_get(o, "port"));
        char device[64];
        if (!json_is_object(o) || port < 0 || port > 65535)
            continue;
        copy_string(device, sizeof device, o, "device");
        p = new_port(snap, device, (unsigned)port);
        if (!p)
            goto oom;
        copy_string(p->state, sizeof p->state, o, "state");
        copy_string(p->phys_state, sizeof p->phys_state, o, "phys_state");
        copy_string(p->link_layer, sizeof p->link_layer, o, "link_layer");
        copy_string(p->rate, sizeof p->rate, o, "rate");
        copy_string(p->problems, sizeof p->problems, o, "problems");
        p->rate_Gbps = get_number(o, "rate_Gbps");
        p->lane_Gbps = get_number(o, "lane_Gbps");
        p->active_width = (int)json_integer_value(json_object_get(o, "active_width"));
        p->from_verbs = json_is_true(json_object_get(o, "from_verbs"));
        p->have_counters = json_is_object(c);
        json_object_foreach((json_t *)c, name, v) {
            if (!json_is_integer(v) || p->ncounters >= MAX_COUNTERS)
                continue;
            if (new_counter(p) < 0)
                goto oom;
            snprintf(p->counters[p->ncounters].name,
                     sizeof p->counters[0].name, "%s", name);
            p->counters[p->ncounters].value = (uint64_t)json_integer_value(v);
            p->ncounters++;
        }
    }
    return 0;
oom:
    cp_ports_clear(snap);
    return cp_errorf(err, "out of memory");
}

/* ---- files ------------------------------------------------------------------ */

/* A node name fit for a file name: [A-Za-z0-9._-], others '_'. */
static void file_safe(char *dst, size_t len, const char *src)
{
    size_t i;

    snprintf(dst, len, "%s", src[0] ? src : "unknown");
    for (i = 0; dst[i]; i++)
        if (!((dst[i] >= 'a' && dst[i] <= 'z') ||
              (dst[i] >= 'A' && dst[i] <= 'Z') ||
              (dst[i] >= '0' && dst[i] <= '9') || dst[i] == '.' ||
              dst[i] == '_' || dst[i] == '-'))
            dst[i] = '_';
    if (dst[0] == '.')
        dst[0] = '_';
}

int cp_ports_write(const struct cp_ports_snapshot *snap, const char *dir,
                   struct cp_error *err)
{
    char node[64], when[16], path[4096];
    json_t *j = cp_ports_to_json(snap);
    struct cp_path_out out;
    int rc = -1;

    if (!j) {
        return cp_errorf(err, "out of memory");
    }
    file_safe(node, sizeof node, snap->node);
    file_safe(when, sizeof when, snap->when);
    snprintf(path, sizeof path, "%s/ports-%s-%s.json", dir, node, when);
    /* the mode is the umask's: a step directory's files are no wider */
    if (cp_path_create(&out, path, CP_PATH_MODE, err) < 0)
        goto out;
    if (json_dumpf(j, out.f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0) {
        cp_error_set(err, path, -1, "%s: cannot write: %s", path,
                     strerror(errno));
        cp_path_discard(&out);
        goto out;
    }
    rc = cp_path_install(&out, err);
out:
    json_decref(j);
    return rc;
}

int cp_ports_snapshot_dir(const char *dir, const char *node, const char *when,
                          struct cp_error *err)
{
    struct cp_ports_snapshot snap;
    char name[64];
    int rc;

    if (!node) {
        cp_ports_node_name(name, sizeof name);
        node = name;
    }
    if (cp_ports_take(&snap, node, when, NULL, err) < 0)
        return -1;
    rc = cp_ports_write(&snap, dir, err);
    cp_ports_clear(&snap);
    return rc;
}

int cp_ports_read(const char *path, struct cp_ports_snapshot *snap,
                  struct cp_error *err)
{
    json_error_t je;
    json_t *j = NULL;
    struct cp_error e;
    char *text;
    size_t len;
    int rc;

    memset(snap, 0, sizeof *snap);
    text = cp_jsonfile_read(path, CP_PATH_NOFOLLOW, CP_PORTS_MAX_BYTES,
                            CP_PORTS_MAX_COST, "port snapshot", &len, err);
    if (!text)
        return -1;
    j = json_loadb(text, len, 0, &je);
    free(text);
    if (!j) {
        errno = EINVAL; /* a reader tells a damaged file from a missing one */
        return cp_errorf_at(err, path, je.position, "%s: line %d: %s", path,
                            je.line, je.text);
    }
    rc = cp_ports_from_json(j, snap, &e);
    json_decref(j);
    if (rc < 0) {
        errno = EINVAL;
        cp_error_set(err, path, -1, "%s: %s", path, e.text);
    }
    return rc;
}
