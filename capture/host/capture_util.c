/* capture_util.c - demangling, running disassemblers, metadata facts (see
 * capture_util.h). */
#include "capture_util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

char *capture_demangle(const char *mangled, capture_demangler fn)
{
    char *result = NULL;
    if (fn && strncmp(mangled, "_Z", 2) == 0) {
        int status = -1;
        char *d = fn(mangled, NULL, NULL, &status);
        if (d && status == 0)
            result = xstrdup(d); /* our copy: d comes from the demangler's allocator */
        free(d);
    }
    return result ? result : xstrdup(mangled);
}

static void first_line_of(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)n, f))
        out[strcspn(out, "\r\n")] = '\0';
    fclose(f);
}

int capture_run_tool(const char *const argv[], const char *stdout_path, err_info *err)
{
    char errpath[4096];
    if ((size_t)snprintf(errpath, sizeof errpath, "%s.err", stdout_path) >= sizeof errpath) {
        err_set(err, "%s: path too long", stdout_path);
        return -1;
    }
    if (access(argv[0], X_OK) != 0) {
        err_set(err, "cannot run %s: %s", argv[0], strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        err_set(err, "%s: cannot set up the child process", argv[0]);
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, 1, stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        err_set(err, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    int status;
    pid_t w;
    do {
        w = waitpid(pid, &status, 0);
    } while (w < 0 && errno == EINTR);
    if (w < 0) {
        err_set(err, "%s: lost track of the child process: %s", argv[0], strerror(errno));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char line[512];
    first_line_of(errpath, line, sizeof line);
    if (WIFEXITED(status))
        err_set(err, "%s failed (exit status %d)%s%s", argv[0], WEXITSTATUS(status), line[0] ? ": " : "", line);
    else
        err_set(err, "%s was killed by signal %d", argv[0], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
}

/* A token of digits and dots with at least one dot, e.g. "580.159.04". */
static size_t version_token(const char *p)
{
    size_t n = 0;
    int dots = 0;
    while (isdigit((unsigned char)p[n]) || p[n] == '.') {
        dots += p[n] == '.';
        n++;
    }
    bool ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';
    return (dots > 0 && ends && isdigit((unsigned char)p[0]) && isdigit((unsigned char)p[n - 1])) ? n : 0;
}

int capture_driver_version(const char *text, char *out, size_t out_bytes)
{
    const char *p = strstr(text, "NVRM version:");
    if (!p)
        return -1;
    p += 13;
    while (*p && *p != '\n') {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = version_token(p);
        if (n) {
            if (n >= out_bytes)
                return -1;
            memcpy(out, p, n);
            out[n] = '\0';
            return 0;
        }
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
    }
    return -1;
}

void capture_cuda_version(int v, char *out, size_t out_bytes)
{
    snprintf(out, out_bytes, "%d.%d", v / 1000, (v % 1000) / 10);
}

void capture_iso8601_utc(time_t t, char *out, size_t out_bytes)
{
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(out, out_bytes, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(out, out_bytes, "unknown");
}

int capture_gpu_append(char *buf, size_t buf_bytes, const capture_gpu *g)
{
    char name[sizeof g->name];
    snprintf(name, sizeof name, "%s", g->name);
    for (char *c = name; *c; c++)
        if (*c == '|' || *c == ';' || *c == '\n')
            *c = '_';
    size_t used = strlen(buf);
    int w = snprintf(buf + used, buf_bytes - used, "%s%s|%u.%u|%u", used ? ";" : "", name, g->cc_major,
                     g->cc_minor, g->sm_count);
    if (w < 0 || (size_t)w >= buf_bytes - used) {
        buf[used] = '\0';
        return -1;
    }
    return 0;
}

int capture_gpu_lookup(const char *list, uint32_t ordinal, capture_gpu *out, err_info *err)
{
    const char *p = list;
    for (uint32_t i = 0; i < ordinal && p; i++) {
        p = strchr(p, ';');
        if (p)
            p++;
    }
    if (!p || !*p) {
        err_set(err, "no GPU %u in the wrapper's list '%s'", ordinal, list);
        return -1;
    }
    size_t len = strcspn(p, ";");
    char entry[256];
    if (len >= sizeof entry)
        goto bad;
    memcpy(entry, p, len);
    entry[len] = '\0';
    char *bar1 = strchr(entry, '|');
    char *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    if (!bar1 || !bar2 || bar1 == entry)
        goto bad;
    *bar1 = *bar2 = '\0';
    unsigned maj, min, sms;
    char tail;
    if (sscanf(bar1 + 1, "%u.%u%c", &maj, &min, &tail) != 2 || sscanf(bar2 + 1, "%u%c", &sms, &tail) != 1)
        goto bad;
    size_t name_len = strlen(entry);
    if (name_len >= sizeof out->name)
        goto bad;
    memset(out, 0, sizeof *out);
    memcpy(out->name, entry, name_len + 1);
    out->cc_major = maj;
    out->cc_minor = min;
    out->sm_count = sms;
    return 0;
bad:
    err_set(err, "GPU %u in the wrapper's list: expected NAME|MAJOR.MINOR|SMS, got '%.*s'", ordinal, (int)len, p);
    return -1;
}
