/* capture_opts.c - command line, environment and launch selection of the
 * capture tool (see capture_opts.h). */
#include "capture_opts.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void capture_opts_init(capture_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = TRACE_FORMAT_BINARY;
    o->buffer_mb = CAPTURE_DEFAULT_BUFFER_MB;
}

void capture_usage(FILE *f)
{
    fputs("usage: " CAPTURE_TOOL_NAME " [OPTIONS] [--] PROGRAM [ARGS...]\n"
          "Run PROGRAM (unmodified) and write a gpumemsim trace of its CUDA kernels.\n"
          "\n"
          "  -o, --output FILE      trace file (default: PROGRAM's name + .trace)\n"
          "      --format FMT       binary (zstd, default) or text\n"
          "      --zstd-level N     compression level 1..19 (default 3)\n"
          "      --kernel REGEX     record only kernels whose demangled name matches\n"
          "                         (POSIX extended regular expression)\n"
          "      --launch N[-M]     record only launches N..M, counted from 0 over all\n"
          "                         kernel launches of the program\n"
          "      --max-records N    at most N warp records per launch; more is an error\n"
          "      --buffer-mb N      device buffer for one launch's records (default 1024)\n"
          "  -v, --verbose          one line per recorded launch on stderr\n"
          "      --shuffles         also record each warp shuffle (SHFL) as a waypoint, for the\n"
          "                         timing model (loops of shuffles; larger traces)\n"
          "      --keep-temp        keep the saved cubins and their listings (the folder is printed)\n"
          "  -h, --help             this help\n"
          "      --version          the tool's version\n"
          "\n"
          "Exit status: the program's; 3 when the program succeeded but the trace is\n"
          "incomplete; 2 on bad usage or when the capture could not start.\n"
          "See docs/capture.md.\n",
          f);
}

int capture_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int capture_parse_launch_range(const char *s, uint64_t *first, uint64_t *last, err_info *err)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        goto bad;
    memcpy(buf, s, n + 1);
    char *dash = strchr(buf, '-');
    if (dash)
        *dash = '\0';
    if (capture_parse_u64(buf, 0, UINT32_MAX, first) < 0)
        goto bad;
    if (!dash) {
        *last = *first;
        return 0;
    }
    if (capture_parse_u64(dash + 1, 0, UINT32_MAX, last) < 0)
        goto bad;
    if (*last < *first) {
        err_set(err, "--launch %s: the range ends before it starts", s);
        return -1;
    }
    return 0;
bad:
    err_set(err, "--launch '%s': expected N or N-M (launch indices from 0)", s);
    return -1;
}

static int parse_format(const char *s, trace_format *out)
{
    if (!strcmp(s, "binary"))
        *out = TRACE_FORMAT_BINARY;
    else if (!strcmp(s, "text"))
        *out = TRACE_FORMAT_TEXT;
    else
        return -1;
    return 0;
}

/* Check one option value, shared by the command line and the environment;
 * `what` names the option or variable in messages. */
static int set_value(capture_opts *o, const char *key, const char *v, const char *what, err_info *err)
{
    uint64_t n;
    if (!strcmp(key, "output")) {
        if (!v[0]) {
            err_set(err, "%s: empty file name", what);
            return -1;
        }
        o->output = v;
    } else if (!strcmp(key, "format")) {
        if (parse_format(v, &o->format) < 0) {
            err_set(err, "%s '%s': expected binary or text", what, v);
            return -1;
        }
    } else if (!strcmp(key, "zstd-level")) {
        if (capture_parse_u64(v, 1, 19, &n) < 0) {
            err_set(err, "%s '%s': expected a number from 1 to 19", what, v);
            return -1;
        }
        o->zstd_level = (uint32_t)n;
    } else if (!strcmp(key, "kernel")) {
        o->kernel_regex = v;
    } else if (!strcmp(key, "launch")) {
        if (capture_parse_launch_range(v, &o->launch_first, &o->launch_last, err) < 0) {
            if (strcmp(what, "--launch") != 0)
                err_prefix(err, "%s", what);
            return -1;
        }
        o->has_launch_range = true;
        o->launch_text = v;
    } else if (!strcmp(key, "max-records")) {
        if (capture_parse_u64(v, 1, CAPTURE_MAX_RECORDS_LIMIT, &n) < 0) {
            err_set(err, "%s '%s': expected a number from 1 to %" PRIu64, what, v, CAPTURE_MAX_RECORDS_LIMIT);
            return -1;
        }
        o->max_records = n;
    } else if (!strcmp(key, "buffer-mb")) {
        if (capture_parse_u64(v, 1, CAPTURE_MAX_BUFFER_MB, &n) < 0) {
            err_set(err, "%s '%s': expected a number from 1 to %u", what, v, CAPTURE_MAX_BUFFER_MB);
            return -1;
        }
        o->buffer_mb = n;
    } else {
        err_set(err, "unknown option '%s'", what);
        return -1;
    }
    return 0;
}

static const char *const valued_options[] = {"output", "format", "zstd-level", "kernel", "launch",
                                              "max-records", "buffer-mb", NULL};

static bool takes_value(const char *key)
{
    for (size_t i = 0; valued_options[i]; i++)
        if (!strcmp(key, valued_options[i]))
            return true;
    return false;
}

int capture_args_parse(int argc, char **argv, capture_opts *o, capture_action *act, err_info *err)
{
    *act = CAPTURE_ACTION_RUN;
    int i = 1;
    while (i < argc) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break; /* the program: options end here */
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *act = CAPTURE_ACTION_HELP;
            return 0;
        }
        if (!strcmp(a, "--version")) {
            *act = CAPTURE_ACTION_VERSION;
            return 0;
        }
        if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = true;
            i++;
            continue;
        }
        if (!strcmp(a, "--keep-temp")) {
            o->keep_temp = true;
            i++;
            continue;
        }
        if (!strcmp(a, "--shuffles")) {
            o->shuffles = true;
            i++;
            continue;
        }
        char key[32];
        const char *value = NULL;
        if (!strcmp(a, "-o")) {
            strcpy(key, "output");
        } else if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            if (len >= sizeof key) {
                err_set(err, "unknown option '%s'", a);
                return -1;
            }
            memcpy(key, a + 2, len);
            key[len] = '\0';
            if (eq)
                value = eq + 1;
        } else {
            err_set(err, "unknown option '%s'", a);
            return -1;
        }
        if (!takes_value(key)) {
            err_set(err, "unknown option '%s'", a);
            return -1;
        }
        if (!value) {
            if (i + 1 >= argc) {
                err_set(err, "option '%s' needs a value", a);
                return -1;
            }
            value = argv[++i];
        }
        char what[48];
        snprintf(what, sizeof what, "--%s", key);
        if (set_value(o, key, value, what, err) < 0)
            return -1;
        i++;
    }
    if (i >= argc) {
        err_set(err, "no program to run (usage: " CAPTURE_TOOL_NAME " [OPTIONS] -- PROGRAM [ARGS...])");
        return -1;
    }
    o->prog_argc = argc - i;
    o->prog_argv = argv + i;
    return 0;
}

int capture_opts_from_env(capture_opts *o, capture_getenv_fn get, err_info *err)
{
    static const struct {
        const char *var;
        const char *key;
    } vars[] = {
        {CAPTURE_ENV_OUTPUT, "output"},       {CAPTURE_ENV_FORMAT, "format"},
        {CAPTURE_ENV_ZSTD_LEVEL, "zstd-level"}, {CAPTURE_ENV_KERNEL, "kernel"},
        {CAPTURE_ENV_LAUNCH, "launch"},       {CAPTURE_ENV_MAX_RECORDS, "max-records"},
        {CAPTURE_ENV_BUFFER_MB, "buffer-mb"},
    };
    capture_opts_init(o);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = get(vars[i].var);
        if (!v)
            continue;
        if (set_value(o, vars[i].key, v, vars[i].var, err) < 0)
            return -1;
    }
    if (!o->output) {
        err_set(err, "%s is not set (run the program under " CAPTURE_TOOL_NAME ")", CAPTURE_ENV_OUTPUT);
        return -1;
    }
    const char *v = get(CAPTURE_ENV_VERBOSE);
    o->verbose = v && !strcmp(v, "1");
    v = get(CAPTURE_ENV_SHUFFLES);
    o->shuffles = v && !strcmp(v, "1");
    return 0;
}

int capture_select_init(capture_select *s, const capture_opts *o, err_info *err)
{
    memset(s, 0, sizeof *s);
    if (o->kernel_regex) {
        int rc = regcomp(&s->re, o->kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &s->re, msg, sizeof msg);
            err_set(err, "--kernel '%s': %s", o->kernel_regex, msg);
            return -1;
        }
        s->has_regex = true;
    }
    s->has_range = o->has_launch_range;
    s->first = o->launch_first;
    s->last = o->launch_last;
    return 0;
}

bool capture_select_launch(const capture_select *s, uint64_t launch, const char *demangled)
{
    if (s->has_range && (launch < s->first || launch > s->last))
        return false;
    if (s->has_regex && regexec(&s->re, demangled, 0, NULL, 0) != 0)
        return false;
    return true;
}

void capture_select_free(capture_select *s)
{
    if (s->has_regex)
        regfree(&s->re);
    memset(s, 0, sizeof *s);
}
