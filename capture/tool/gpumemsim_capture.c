/* gpumemsim_capture.c - the gpumemsim-capture command: checks its options,
 * finds the injection library and NVIDIA's disassemblers, describes the GPUs
 * for the trace's metadata (through the driver, before the program starts:
 * the library may not call the driver from its callbacks), then runs the
 * program with CUDA_INJECTION64_PATH set and reports how the capture ended.
 *
 * The program runs as a child so that the command can say what happened
 * when it crashes (the library's END record may be missing then) and can
 * remove the temporary folder of saved cubins and listings. Exit status: the
 * program's; 128+N when a signal N killed it; 3 when it succeeded but the
 * trace is incomplete or missing; 2 when the capture could not start. */
#include <cuda.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture_opts.h"
#include "capture_util.h"
#include "err.h"

#define PATH_BYTES 4096
#define GPU_LIST_BYTES 8192
#define COMMAND_BYTES 4096

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(CAPTURE_TOOL_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* An NVIDIA tool: $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, PATH. */
static int find_tool(const char *name, char *out, size_t n)
{
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        if (!homes[i] || !homes[i][0])
            continue;
        snprintf(out, n, "%s/bin/%s", homes[i], name);
        if (executable(out))
            return 0;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < n - strlen(name) - 2) {
            snprintf(out, n, "%.*s/%s", (int)len, path, name);
            if (executable(out))
                return 0;
        }
        path += len + (path[len] == ':');
    }
    return -1;
}

/* The injection library: $GPUMEMSIM_CAPTURE_LIB, else next to this program. */
static int find_library(char *out, size_t n)
{
    const char *env = getenv("GPUMEMSIM_CAPTURE_LIB");
    char buf[PATH_BYTES];
    if (env && env[0]) {
        snprintf(buf, sizeof buf, "%s", env);
    } else {
        ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (len <= 0)
            return -1;
        buf[len] = '\0';
        char *slash = strrchr(buf, '/');
        if (!slash)
            return -1;
        snprintf(slash + 1, sizeof buf - (size_t)(slash + 1 - buf), "libgpumemsim_capture.so");
    }
    if (!realpath(buf, out) || access(out, R_OK) != 0) {
        snprintf(out, n, "%s", buf);
        return -1;
    }
    return 0;
}

typedef CUresult (*cu_init_fn)(unsigned);
typedef CUresult (*cu_count_fn)(int *);
typedef CUresult (*cu_get_fn)(CUdevice *, int);
typedef CUresult (*cu_name_fn)(char *, int, CUdevice);
typedef CUresult (*cu_attr_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*cu_version_fn)(int *);

static void *sym(void *h, const char *name)
{
    return dlsym(h, name);
}

/* Describe every visible GPU through the driver API, before the program runs. */
static int describe_gpus(char *list, size_t n, int *cuda_version, err_info *err)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        err_set(err, "no CUDA driver: %s", dlerror());
        return -1;
    }
    cu_init_fn init;
    cu_count_fn count;
    cu_get_fn get;
    cu_name_fn name;
    cu_attr_fn attr;
    cu_version_fn version;
    void *p[6] = {sym(h, "cuInit"), sym(h, "cuDeviceGetCount"), sym(h, "cuDeviceGet"), sym(h, "cuDeviceGetName"),
                  sym(h, "cuDeviceGetAttribute"), sym(h, "cuDriverGetVersion")};
    for (int i = 0; i < 6; i++)
        if (!p[i]) {
            err_set(err, "libcuda.so.1 lacks the device query functions");
            return -1;
        }
    memcpy(&init, &p[0], sizeof init);
    memcpy(&count, &p[1], sizeof count);
    memcpy(&get, &p[2], sizeof get);
    memcpy(&name, &p[3], sizeof name);
    memcpy(&attr, &p[4], sizeof attr);
    memcpy(&version, &p[5], sizeof version);
    int ndev = 0;
    CUresult r = init(0);
    if (r == CUDA_SUCCESS)
        r = count(&ndev);
    if (r != CUDA_SUCCESS || ndev == 0) {
        err_set(err, "no CUDA device (cuInit/cuDeviceGetCount: error %d, %d devices)", (int)r, ndev);
        return -1;
    }
    if (version(cuda_version) != CUDA_SUCCESS)
        *cuda_version = 0;
    list[0] = '\0';
    for (int i = 0; i < ndev; i++) {
        CUdevice dev;
        capture_gpu g;
        memset(&g, 0, sizeof g);
        int maj = 0, min = 0, sms = 0;
        if (get(&dev, i) != CUDA_SUCCESS || name(g.name, (int)sizeof g.name, dev) != CUDA_SUCCESS ||
            attr(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
            attr(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS ||
            attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS) {
            err_set(err, "cannot query CUDA device %d", i);
            return -1;
        }
        g.cc_major = (uint32_t)maj;
        g.cc_minor = (uint32_t)min;
        g.sm_count = (uint32_t)sms;
        if (capture_gpu_append(list, n, &g) < 0) {
            err_set(err, "too many CUDA devices to describe");
            return -1;
        }
    }
    return 0; /* the driver stays loaded: the program replaces this process image anyway */
}

static void driver_version(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char text[1024];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    if (capture_driver_version(text, out, n) < 0)
        snprintf(out, n, "unknown");
}

/* The saved cubins and listings are flat files in dir. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[PATH_BYTES];
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* "complete\t..." / "incomplete\tREASON"; returns 1, 0, or -1 when absent. */
static int read_status(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[64];
    int rc = -1;
    if (fgets(line, sizeof line, f))
        rc = strncmp(line, "complete", 8) == 0 ? 1 : 0;
    fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    capture_opts o;
    capture_opts_init(&o);
    capture_action act;
    err_info err;
    err_clear(&err);
    if (capture_args_parse(argc, argv, &o, &act, &err) < 0)
        return fail("%s", err.msg);
    if (act == CAPTURE_ACTION_HELP) {
        capture_usage(stdout);
        return 0;
    }
    if (act == CAPTURE_ACTION_VERSION) {
        printf(CAPTURE_TOOL_NAME " %s\n", CAPTURE_VERSION);
        return 0;
    }
    capture_select sel;
    if (capture_select_init(&sel, &o, &err) < 0)
        return fail("%s", err.msg);
    capture_select_free(&sel);

    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && inj[0])
        return fail("CUDA_INJECTION64_PATH is already set (%s): another CUDA tool is attached; the Compute "
                    "Sanitizer API allows one (do not run under ncu or compute-sanitizer)", inj);

    char lib[PATH_BYTES], nvdisasm[PATH_BYTES], cuobjdump[PATH_BYTES];
    if (find_library(lib, sizeof lib) < 0)
        return fail("cannot find the injection library %s (set GPUMEMSIM_CAPTURE_LIB)", lib);
    if (find_tool("nvdisasm", nvdisasm, sizeof nvdisasm) < 0 ||
        find_tool("cuobjdump", cuobjdump, sizeof cuobjdump) < 0)
        return fail("cannot find nvdisasm and cuobjdump of the CUDA Toolkit (set CUDA_HOME or PATH)");

    char gpus[GPU_LIST_BYTES];
    int cuda_v = 0;
    if (describe_gpus(gpus, sizeof gpus, &cuda_v, &err) < 0)
        return fail("%s", err.msg);
    char cuda[32], driver[64];
    if (cuda_v)
        capture_cuda_version(cuda_v, cuda, sizeof cuda);
    else
        snprintf(cuda, sizeof cuda, "unknown");
    driver_version(driver, sizeof driver);

    /* the trace path, absolute (the program may change directory) */
    char output[PATH_BYTES];
    const char *out = o.output;
    char def[PATH_BYTES];
    if (!out) {
        const char *base = strrchr(o.prog_argv[0], '/');
        snprintf(def, sizeof def, "%s.trace", base ? base + 1 : o.prog_argv[0]);
        out = def;
    }
    if (!strcmp(out, "-"))
        return fail("-o -: the trace cannot go to standard output (the program writes there)");
    if (out[0] == '/') {
        snprintf(output, sizeof output, "%s", out);
    } else {
        char cwd[PATH_BYTES];
        if (!getcwd(cwd, sizeof cwd))
            return fail("cannot get the current directory: %s", strerror(errno));
        if ((size_t)snprintf(output, sizeof output, "%s/%s", cwd, out) >= sizeof output)
            return fail("%s: path too long", out);
    }
    int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fail("cannot create %s: %s", output, strerror(errno));
    close(fd);

    const char *tmp = getenv("TMPDIR");
    char tmpdir[PATH_BYTES - 64];
    snprintf(tmpdir, sizeof tmpdir, "%s/gpumemsim-capture.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(tmpdir))
        return fail("cannot create a temporary folder in %s: %s", tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
    char status[PATH_BYTES];
    snprintf(status, sizeof status, "%s/status", tmpdir);

    char command[COMMAND_BYTES] = "";
    size_t used = 0;
    for (int i = 0; i < o.prog_argc && used < sizeof command - 1; i++) {
        int w = snprintf(command + used, sizeof command - used, "%s%s", i ? " " : "", o.prog_argv[i]);
        used = w < 0 ? used : used + (size_t)w;
        if (used >= sizeof command)
            used = sizeof command - 1;
    }

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        remove_dir(tmpdir);
        return fail("cannot start the program: %s", strerror(errno));
    }
    if (pid == 0) {
        char pidstr[32];
        snprintf(pidstr, sizeof pidstr, "%ld", (long)getpid());
        setenv("CUDA_INJECTION64_PATH", lib, 1);
        setenv(CAPTURE_ENV_OUTPUT, output, 1);
        setenv(CAPTURE_ENV_FORMAT, o.format == TRACE_FORMAT_TEXT ? "text" : "binary", 1);
        if (o.zstd_level) {
            char v[16];
            snprintf(v, sizeof v, "%u", o.zstd_level);
            setenv(CAPTURE_ENV_ZSTD_LEVEL, v, 1);
        }
        if (o.kernel_regex)
            setenv(CAPTURE_ENV_KERNEL, o.kernel_regex, 1);
        if (o.launch_text)
            setenv(CAPTURE_ENV_LAUNCH, o.launch_text, 1);
        char v[32];
        if (o.max_records) {
            snprintf(v, sizeof v, "%llu", (unsigned long long)o.max_records);
            setenv(CAPTURE_ENV_MAX_RECORDS, v, 1);
        }
        snprintf(v, sizeof v, "%llu", (unsigned long long)o.buffer_mb);
        setenv(CAPTURE_ENV_BUFFER_MB, v, 1);
        setenv(CAPTURE_ENV_VERBOSE, o.verbose ? "1" : "0", 1);
        setenv(CAPTURE_ENV_SHUFFLES, o.shuffles ? "1" : "0", 1);
        setenv(CAPTURE_ENV_TMPDIR, tmpdir, 1);
        setenv(CAPTURE_ENV_STATUS, status, 1);
        setenv(CAPTURE_ENV_PID, pidstr, 1);
        setenv(CAPTURE_ENV_GPUS, gpus, 1);
        setenv(CAPTURE_ENV_DRIVER, driver, 1);
        setenv(CAPTURE_ENV_CUDA, cuda, 1);
        setenv(CAPTURE_ENV_NVDISASM, nvdisasm, 1);
        setenv(CAPTURE_ENV_CUOBJDUMP, cuobjdump, 1);
        setenv(CAPTURE_ENV_COMMAND, command, 1);
        execvp(o.prog_argv[0], o.prog_argv);
        fprintf(stderr, CAPTURE_TOOL_NAME ": cannot run %s: %s\n", o.prog_argv[0], strerror(errno));
        _exit(127);
    }

    /* Ctrl-C reaches the program (same process group); wait for it to end */
    struct sigaction ign, old_int, old_quit;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    int wstatus = 0;
    pid_t w;
    do {
        w = waitpid(pid, &wstatus, 0);
    } while (w < 0 && errno == EINTR);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);

    int trace_state = read_status(status);
    if (o.keep_temp)
        fprintf(stderr, CAPTURE_TOOL_NAME ": kept the saved cubins and listings in %s\n", tmpdir);
    else
        remove_dir(tmpdir);

    int code;
    if (w < 0) {
        fail("lost track of the program: %s", strerror(errno));
        code = 2;
    } else if (WIFSIGNALED(wstatus)) {
        code = 128 + WTERMSIG(wstatus);
        fprintf(stderr, CAPTURE_TOOL_NAME ": the program was killed by signal %d\n", WTERMSIG(wstatus));
    } else {
        code = WEXITSTATUS(wstatus);
    }
    if (trace_state < 0) {
        struct stat st;
        if (stat(output, &st) == 0 && st.st_size == 0) {
            unlink(output);
            fprintf(stderr, CAPTURE_TOOL_NAME ": no trace written: the program never initialized CUDA or the "
                    "library %s was not loaded\n", lib);
        } else {
            fprintf(stderr, CAPTURE_TOOL_NAME ": %s has no END record (the program ended before the tracer "
                    "could finish it): readers will report it as truncated\n", output);
        }
    }
    if (code == 0 && trace_state != 1)
        code = 3;
    return code;
}
