/* The ``tokens`` command as a small native program: the short-output fast path of ``tokens run``
 * without starting the Python interpreter, else the Python entry point (``tokens-python`` beside this
 * program, ``flows/quick.py``).
 *
 * A short ``tokens run -- CMD`` costs the interpreter's own start-up (~9 ms) and more when it is
 * Python that starts the command; this program does exactly what ``flows.quick.try_run`` does, step
 * for step, and hands everything else over by ``exec``:
 *
 *   - only ``tokens run [--host H] [--] CMD ...`` on Linux, ``NOLIFE_TOKENS_QUICK`` not ``0``, and
 *     every argument plain ASCII (the usage line names the command; other bytes go the Python way);
 *   - SIGINT, SIGTERM and SIGHUP blocked; the watchdog started (``flows/watchdog.py``: ``/bin/sh``
 *     in a session of its own, reading a pipe only we hold), then the command, in its own session,
 *     stdout and stderr on one pipe, an empty signal mask, SIGPIPE and SIGXFSZ at their defaults;
 *   - read for at most QUICK_WAIT s (READ_MAX bytes); when it exited having printed fewer than
 *     DEFAULT_MIN_BYTES of plain printable ASCII (``flows.quick._plain``) and no config file could
 *     change ``min_bytes``, print it (``[command failed: exit code N]`` first when it failed), append
 *     the usage line (``flows/quickcount.py``), restore the mask, release the watchdog, exit with the
 *     command's status;
 *   - otherwise ``exec`` the Python entry point with the running (or ended) command handed over in
 *     ``NOLIFE_TOKENS_HANDOVER``: its pid, the pipe's read end, a memory file holding what was read,
 *     whether the output ended and its exit status, the watchdog's pipe, and which of the three
 *     signals were blocked before (``flows.quick.adopt``). Nothing is read twice or lost; the signals
 *     stay blocked across ``exec`` until the Python part has installed its handlers.
 *
 * ``tests/test_launcher.py`` builds this file and proves it prints, exits and counts as the Python
 * fast path does, and hands over what the full path then reduces the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define QUICK_WAIT_NS 250000000LL          /* flows.quick.QUICK_WAIT */
#define DEFAULT_MIN_BYTES 4096             /* flows.quick.DEFAULT_MIN_BYTES */
#define READ_MAX (8 * 1024 * 1024)         /* flows.quick.READ_MAX */
#define SOURCE_MAX 200                     /* flows.quickcount.SOURCE_MAX */
#define PYTHON_PART "tokens-python"

static const char WATCHDOG[] =
    "read -r pgid || exit 0; read -r word; [ \"$word\" = done ] || kill -9 \"-$pgid\" 2>/dev/null";

static char **g_argv;

/* ------------------------------------------------------------------ the Python part */

static void exec_python(void) {
    char self[PATH_MAX], path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "tokens: error: cannot find the Python part (no /proc/self/exe)\n");
        exit(126);
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    snprintf(path, sizeof path, "%s/%s", self, PYTHON_PART);
    g_argv[0] = path;
    execv(path, g_argv);
    fprintf(stderr, "tokens: error: cannot start %s: %s\n", path, strerror(errno));
    exit(126);
}

/* ------------------------------------------------------------------ which calls take the fast path */

static int ascii_only(char **args, int n) {
    for (int i = 0; i < n; i++)
        for (const unsigned char *p = (const unsigned char *)args[i]; *p; p++)
            if (*p >= 0x80) return 0;
    return 1;
}

/* The command of a ``run`` with no options (flows.quick._command): where it starts in argv (its length
 * in *ncmd), else NULL. */
static char **command_of(int argc, char **argv, int *ncmd) {
    char **a = argv + 1;
    int n = argc - 1, host = 0;
    if (n >= 3 && !strcmp(a[0], "run") && !strcmp(a[1], "--host")) { /* ["run", *argv[3:]] */
        a += 2;
        n -= 2;
        host = 1;
    }
    if (n < 2 || (!host && strcmp(a[0], "run"))) return NULL;
    char **cmd = strcmp(a[1], "--") ? a + 1 : a + 2;
    *ncmd = n - (int)(cmd - a);
    if (*ncmd <= 0 || cmd[0][0] == '-') return NULL;
    const char *slash = strrchr(cmd[0], '/');
    if (!strcmp(slash ? slash + 1 : cmd[0], "tokens")) return NULL;
    return cmd;
}

static const char *strip_env(const char *name, char *buf, size_t size) {
    const char *v = getenv(name);
    if (!v) return NULL;
    while (*v == ' ' || (*v >= '\t' && *v <= '\r')) v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || (v[n - 1] >= '\t' && v[n - 1] <= '\r'))) n--;
    if (!n || n >= size) return NULL;
    memcpy(buf, v, n);
    buf[n] = 0;
    return buf;
}

/* flows.quick._eligible: no config file could change min_bytes. */
static int eligible(void) {
    const char *conf = getenv("NOLIFE_TOKENS_CONFIG");
    if (conf && *conf) return 0;
    char base[PATH_MAX], path[PATH_MAX + 64];
    if (!strip_env("XDG_CONFIG_HOME", base, sizeof base)) {
        const char *home = getenv("HOME");
        if (!home || !*home) return 0; /* Python would ask the password database: leave it to Python */
        snprintf(base, sizeof base, "%s/.config", home);
    }
    snprintf(path, sizeof path, "%s/nolife-tokens/config.toml", base);
    struct stat st;
    return stat(path, &st) != 0;
}

/* ------------------------------------------------------------------ plain output (flows.quick._plain) */

static const char *SECRET_WORDS[] = {
    "token", "secret", "pass", "key", "auth", "credential", "private", "cookie", "session", "dsn", "signature",
    "cert", "bearer", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "sk-", "sk_", "rk_",
    "akia", "asia", "agpa", "aida", "aroa", "anpa", "aiza", "eyj", "npm_", "hf_", NULL};

static int plain(const unsigned char *d, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = d[i];
        if (c == '\r') {
            if (i + 1 >= n || d[i + 1] != '\n') return 0;
        } else if (!((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n')) {
            return 0;
        }
        if (c == '=') return 0;
    }
    if (memmem(d, n, "#ref:", 5)) return 0;
    char *lower = malloc(n + 1);
    if (!lower) return 0;
    for (size_t i = 0; i < n; i++) lower[i] = (d[i] >= 'A' && d[i] <= 'Z') ? d[i] + 32 : d[i];
    int ok = 1;
    for (const char **w = SECRET_WORDS; *w && ok; w++)
        if (memmem(lower, n, *w, strlen(*w))) ok = 0;
    free(lower);
    if (ok && memmem(d, n, "://", 3) && memchr(d, '@', n)) ok = 0;
    return ok;
}

/* ------------------------------------------------------------------ the usage line (flows/quickcount.py) */

static int safe_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("@%+=:,./-_", c);
}

/* Append ``s`` (n bytes) JSON-quoted as json.dumps writes an ASCII string. */
static void json_add(char *out, size_t *len, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') { out[(*len)++] = '\\'; out[(*len)++] = c; }
        else if (c >= 0x20 && c < 0x7f) out[(*len)++] = c;
        else if (c == '\n') { out[(*len)++] = '\\'; out[(*len)++] = 'n'; }
        else if (c == '\r') { out[(*len)++] = '\\'; out[(*len)++] = 'r'; }
        else if (c == '\t') { out[(*len)++] = '\\'; out[(*len)++] = 't'; }
        else if (c == '\b') { out[(*len)++] = '\\'; out[(*len)++] = 'b'; }
        else if (c == '\f') { out[(*len)++] = '\\'; out[(*len)++] = 'f'; }
        else *len += (size_t)sprintf(out + *len, "\\u%04x", c);
    }
}

static void count(char **cmd, int ncmd, size_t size) {
    char where[PATH_MAX], base[PATH_MAX];
    if (!strip_env("NOLIFE_TOKENS_HOME", where, sizeof where)) {
        if (!strip_env("XDG_DATA_HOME", base, sizeof base)) {
            const char *home = getenv("HOME");
            if (!home || !*home) return;
            snprintf(base, sizeof base, "%s/.local/share", home);
        }
        if (snprintf(where, sizeof where, "%s/nolife-tokens", base) >= (int)sizeof where) return;
    }
    struct stat st;
    if (lstat(where, &st) != 0 || !S_ISDIR(st.st_mode)) return; /* missing, not a directory, or a link */
    /* "run: " + shlex.join(cmd), cut to SOURCE_MAX characters (all ASCII here) */
    size_t cap = 16, srclen = 0;
    for (int i = 0; i < ncmd; i++) cap += 4 * strlen(cmd[i]) + 8;
    char *src = malloc(cap);
    if (!src) return;
    srclen = (size_t)sprintf(src, "run: ");
    for (int i = 0; i < ncmd; i++) {
        const char *a = cmd[i];
        int safe = *a != 0;
        for (const unsigned char *p = (const unsigned char *)a; *p && safe; p++) safe = safe_char(*p);
        if (i) src[srclen++] = ' ';
        if (safe) { memcpy(src + srclen, a, strlen(a)); srclen += strlen(a); continue; }
        src[srclen++] = '\'';
        for (const char *p = a; *p; p++) {
            if (*p == '\'') { memcpy(src + srclen, "'\"'\"'", 5); srclen += 5; }
            else src[srclen++] = *p;
        }
        src[srclen++] = '\'';
    }
    if (srclen > SOURCE_MAX) srclen = SOURCE_MAX;
    char *line = malloc(srclen * 6 + 160);
    if (!line) { free(src); return; }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    char num[40];
    for (int prec = 10; prec <= 17; prec++) { /* repr(float): the shortest digits that read back the same */
        snprintf(num, sizeof num, "%.*g", prec, t);
        if (strtod(num, NULL) == t) break;
    }
    if (!strchr(num, '.') && !strchr(num, 'e')) strcat(num, ".0");
    size_t len = (size_t)sprintf(line, "{\"t\": %s, \"cmd\": \"run-quick\", \"id\": \"", num);
    json_add(line, &len, src, srclen);
    len += (size_t)sprintf(line + len, "\", \"bytes\": %zu}\n", size);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/usage.jsonl", where);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ssize_t w = write(fd, line, len);
        (void)w;
        close(fd);
    }
    free(line);
    free(src);
}

/* ------------------------------------------------------------------ the command and its watchdog */

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* flows.watchdog.prepare: the write end of a watchdog's pipe, or -1 (the run goes on unguarded). */
static int watchdog(void) {
    struct stat st;
    if (stat("/bin/sh", &st) != 0) return -1;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[0], 0);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    char *args[] = {"sh", "-c", (char *)WATCHDOG, "sh", NULL};
    char *env[] = {"PATH=/usr/bin:/bin", NULL};
    pid_t pid;
    int err = posix_spawn(&pid, "/bin/sh", &fa, &at, args, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[0]);
    if (err) {
        close(p[1]);
        return -1;
    }
    return p[1];
}

static void write_all(int fd, const char *buf, size_t n) {
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return; /* EPIPE and the like: the reader left (SIGPIPE is ignored) */
        }
        buf += w;
        n -= (size_t)w;
    }
}

/* Hand the command over to the Python part (flows.quick.adopt), which goes on as if it had started it. */
static void hand_over(pid_t pid, int read_fd, const char *data, size_t len, int eof, int status, int guard,
                      const sigset_t *before) {
    int mem = memfd_create("tokens-run", 0);
    if (mem < 0) {
        FILE *f = tmpfile();
        mem = f ? dup(fileno(f)) : -1;
    }
    if (mem < 0 && len) {
        fprintf(stderr, "tokens: error: cannot keep the command's output: %s\n", strerror(errno));
        exit(126); /* the watchdog's pipe closes empty: the command's group is killed */
    }
    if (mem >= 0) {
        write_all(mem, data, len);
        lseek(mem, 0, SEEK_SET);
    }
    int fds[] = {read_fd, mem, guard};
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0) fcntl(fds[i], F_SETFD, 0); /* kept across exec */
    int blocked = (sigismember(before, SIGINT) ? 1 : 0) | (sigismember(before, SIGTERM) ? 2 : 0) |
                  (sigismember(before, SIGHUP) ? 4 : 0);
    char value[160];
    if (eof) snprintf(value, sizeof value, "1 %d %d %d 1 %d %d %d", (int)pid, read_fd, mem, status, guard, blocked);
    else snprintf(value, sizeof value, "1 %d %d %d 0 0 %d %d", (int)pid, read_fd, mem, guard, blocked);
    setenv("NOLIFE_TOKENS_HANDOVER", value, 1);
    exec_python();
}

int main(int argc, char **argv) {
    g_argv = argv;
#ifndef __linux__
    exec_python();
#endif
    int ncmd = 0;
    char **cmd = command_of(argc, argv, &ncmd);
    const char *quick = getenv("NOLIFE_TOKENS_QUICK");
    if (!cmd || (quick && !strcmp(quick, "0")) || getenv("NOLIFE_TOKENS_HANDOVER") || !ascii_only(cmd, ncmd))
        exec_python();
    int printable = eligible();
    signal(SIGPIPE, SIG_IGN); /* as in Python: a reader that left is EPIPE, not death */
    sigset_t three, before;
    sigemptyset(&three);
    sigaddset(&three, SIGINT);
    sigaddset(&three, SIGTERM);
    sigaddset(&three, SIGHUP);
    sigprocmask(SIG_BLOCK, &three, &before);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0 || p[0] < 3 || p[1] < 3) { /* a standard stream was closed: the Python way */
        sigprocmask(SIG_SETMASK, &before, NULL);
        exec_python();
    }
    int guard = watchdog();
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    posix_spawnattr_init(&at);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGXFSZ);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &defaults);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int err = posix_spawnp(&pid, cmd[0], &fa, &at, cmd, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    if (err) { /* not found, not executable: the Python part says so, as the full path does */
        close(p[0]);
        if (guard >= 0) close(guard);
        sigprocmask(SIG_SETMASK, &before, NULL);
        exec_python();
    }
    if (guard >= 0) { /* flows.watchdog.watch: the command's group */
        char num[32];
        int k = snprintf(num, sizeof num, "%d\n", (int)pid);
        if (write(guard, num, (size_t)k) != k) {
            close(guard);
            guard = -1;
        }
    }
    /* flows.quick._read */
    long long deadline = now_ns() + QUICK_WAIT_NS;
    size_t cap = 65536, len = 0;
    char *data = malloc(cap);
    int ended = 0, done = 0, status = 0, wstatus = 0;
    while (data && len < READ_MAX) {
        long long left = deadline - now_ns();
        if (left <= 0) break;
        struct pollfd pf = {p[0], POLLIN, 0};
        int r = poll(&pf, 1, (int)((left + 999999) / 1000000));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        if (cap - len < 65536) {
            char *more = realloc(data, cap * 2);
            if (!more) break;
            data = more;
            cap *= 2;
        }
        ssize_t got = read(p[0], data + len, 65536);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            ended = 1;
            break;
        }
        len += (size_t)got;
    }
    if (!data) {
        fprintf(stderr, "tokens: error: out of memory\n");
        exit(1);
    }
    if (ended) {
        for (;;) {
            pid_t w = waitpid(pid, &wstatus, WNOHANG);
            if (w == pid) {
                done = 1;
                status = WIFSIGNALED(wstatus) ? -WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
                break;
            }
            if (w < 0 && errno != EINTR) break;
            if (now_ns() >= deadline) break;
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    }
    if (!(done && len < DEFAULT_MIN_BYTES && printable && plain((unsigned char *)data, len)))
        hand_over(pid, p[0], data, len, done, status, guard, &before);
    close(p[0]);
    int code = status < 0 ? 128 - status : status;
    char head[64];
    int k = code ? snprintf(head, sizeof head, "[command failed: exit code %d]\n", code) : 0;
    char *out = malloc((size_t)k + len + 1);
    if (out) {
        memcpy(out, head, (size_t)k);
        memcpy(out + k, data, len);
        write_all(1, out, (size_t)k + len);
    }
    count(cmd, ncmd, (size_t)k + len);
    sigprocmask(SIG_SETMASK, &before, NULL); /* a signal that came meanwhile ends us now */
    if (guard >= 0) { /* flows.watchdog.release: a normal exit */
        write_all(guard, "done\n", 5);
        close(guard);
    }
    return code;
}
