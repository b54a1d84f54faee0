/* A flow that tries, one call at a time, each way out of its process that
   spec §8 says an isolated flow does not have: faking the operator's
   terminal input, signalling or limiting the host, changing a file's
   metadata, looking at paths, reading the host's environment. `escape.try`
   {what, target?} answers {done, errno, pid}: done is true when the call did
   what it asks. Its entry symbol records whether it could open a file. */
#define _GNU_SOURCE
#define NAME "escapes"
#define MANIFEST "{\"methods\":[" \
    "{\"name\":\"escape.try\",\"params\":[{\"name\":\"what\",\"type\":\"string\"}," \
    "{\"name\":\"target\",\"type\":\"string\",\"required\":false}]}," \
    "{\"name\":\"escape.entry\",\"params\":[]}," \
    "{\"name\":\"escape.write\",\"params\":[{\"name\":\"text\",\"type\":\"string\"}]}]}"
#define CUSTOM_HANDLE
#define NO_ENTRY
#include "test_plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <time.h>

extern char **environ;

static int entry_opened = -1, entry_errno;

/* With a file named write-here beside the library, the entry symbol also
   tries to create entry-wrote there: in every process that asks it (the
   names child too), so a test sees whether any of them could. */
static void try_writing_beside_the_library(void) {
    Dl_info self;
    if (!dladdr((void *)try_writing_beside_the_library, &self) || !self.dli_fname) return;
    const char *slash = strrchr(self.dli_fname, '/');
    if (!slash) return;
    char path[4096];
    snprintf(path, sizeof path, "%.*s/write-here", (int)(slash - self.dli_fname), self.dli_fname);
    int flag = open(path, O_RDONLY);
    if (flag < 0) return;
    close(flag);
    snprintf(path, sizeof path, "%.*s/entry-wrote", (int)(slash - self.dli_fname), self.dli_fname);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) close(fd);
}

/* The entry symbol: what it could do is what the flow's first code can. */
FLOWHOST_PLUGIN_EXPORT const flowhost_plugin_descriptor_v1 *flowhost_plugin_v1(void) {
    if (entry_opened < 0) {
        int fd = open("/etc/hostname", O_RDONLY);
        entry_opened = fd >= 0;
        entry_errno = fd >= 0 ? 0 : errno;
        if (fd >= 0) close(fd);
        try_writing_beside_the_library();
    }
    return &descriptor;
}

/* Done (0 or more) or not (-1, errno set). */
static long attempt(const char *what, const char *target) {
    pid_t host = getppid();
    if (strncmp(what, "tiocsti:", 8) == 0) {
        const char *which = what + 8;
        int fd = strcmp(which, "tty") == 0 ? open("/dev/tty", O_RDWR | O_NOCTTY) : atoi(which);
        if (fd < 0) return -1;
        char c = 'Q';
        long rc = ioctl(fd, TIOCSTI, &c);
        int saved = errno;
        if (strcmp(which, "tty") == 0) close(fd);
        errno = saved;
        return rc;
    }
    if (strcmp(what, "kill") == 0) return kill(host, SIGCONT);
    if (strcmp(what, "tgkill") == 0) return syscall(SYS_tgkill, host, host, SIGCONT);
    if (strcmp(what, "tkill") == 0) return syscall(SYS_tkill, host, SIGCONT);
    if (strcmp(what, "rt_sigqueueinfo") == 0 || strcmp(what, "rt_tgsigqueueinfo") == 0) {
        /* A queued SIGCONT, as sigqueue() would send it. */
        siginfo_t info;
        memset(&info, 0, sizeof info);
        info.si_signo = SIGCONT;
        info.si_code = SI_QUEUE;
        info.si_pid = getpid();
        return strcmp(what, "rt_sigqueueinfo") == 0 ? syscall(SYS_rt_sigqueueinfo, host, SIGCONT, &info)
                                                    : syscall(SYS_rt_tgsigqueueinfo, host, host, SIGCONT, &info);
    }
    if (strcmp(what, "pidfd") == 0) {
        long fd = syscall(SYS_pidfd_open, host, 0);
        if (fd < 0) return -1;
        long rc = syscall(SYS_pidfd_send_signal, (int)fd, SIGCONT, NULL, 0);
        int saved = errno;
        close((int)fd);
        errno = saved;
        return rc;
    }
    if (strcmp(what, "prlimit") == 0) {
        struct rlimit few = {7, 7};
        return prlimit(host, RLIMIT_NOFILE, &few, NULL);
    }
    if (strcmp(what, "raise_own_limit") == 0) {
        struct rlimit more = {RLIM_INFINITY, RLIM_INFINITY};
        return setrlimit(RLIMIT_NOFILE, &more);
    }
    if (strcmp(what, "setpriority") == 0) return setpriority(PRIO_PROCESS, (id_t)host, 19);
    if (strcmp(what, "socket") == 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0) close(fd);
        return fd;
    }
    if (strcmp(what, "fork") == 0) {
        pid_t child = fork();
        if (child == 0) _exit(0);
        if (child > 0) waitpid(child, NULL, 0);
        return child;
    }
    if (strcmp(what, "execve") == 0) {
        char *argv[] = {"/bin/true", NULL};
        return execve(argv[0], argv, environ);
    }
    if (strcmp(what, "ptrace") == 0) return ptrace(PTRACE_ATTACH, host, NULL, NULL);
    if (strcmp(what, "process_vm_readv") == 0) {
        char byte;
        struct iovec local = {&byte, 1}, remote = {(void *)&byte, 1};
        return process_vm_readv(host, &local, 1, &remote, 1, 0);
    }
    if (strcmp(what, "fchmod") == 0) return fchmod(1, 0666);
    if (strcmp(what, "fstat") == 0) {
        struct stat status;
        return fstat(3, &status);
    }
    if (!target) {
        errno = EINVAL;
        return -1;
    }
    if (strcmp(what, "chmod") == 0) return chmod(target, 0644);
    if (strcmp(what, "fchmodat") == 0) return fchmodat(AT_FDCWD, target, 0644, 0);
    if (strcmp(what, "chown") == 0) return chown(target, 12345, 12345);
    if (strcmp(what, "utimensat") == 0) {
        struct timespec times[2] = {{0, 0}, {0, 0}};
        return utimensat(AT_FDCWD, target, times, 0);
    }
    if (strcmp(what, "rename") == 0) {
        char moved[4096];
        snprintf(moved, sizeof moved, "%s.moved", target);
        return rename(target, moved);
    }
    if (strcmp(what, "unlink") == 0) return unlink(target);
    if (strcmp(what, "link") == 0) {
        char linked[4096];
        snprintf(linked, sizeof linked, "%s.link", target);
        return link(target, linked);
    }
    if (strcmp(what, "mkdir") == 0) {
        char folder[4096];
        snprintf(folder, sizeof folder, "%s.d", target);
        return mkdir(folder, 0700);
    }
    if (strcmp(what, "truncate") == 0) return truncate(target, 0);
    if (strcmp(what, "mknod") == 0) {
        char fifo[4096];
        snprintf(fifo, sizeof fifo, "%s.fifo", target);
        return mknod(fifo, S_IFIFO | 0600, 0);
    }
    if (strcmp(what, "utimes") == 0) {
        struct timeval times[2] = {{0, 0}, {0, 0}};
        return utimes(target, times);
    }
    if (strcmp(what, "access") == 0) return access(target, F_OK);
    if (strcmp(what, "readlink") == 0) {
        char buffer[256];
        return readlink(target, buffer, sizeof buffer);
    }
    if (strcmp(what, "stat") == 0) {
        struct stat status;
        return stat(target, &status);
    }
    if (strcmp(what, "name_to_handle_at") == 0) {
        char space[sizeof(struct file_handle) + 128];
        struct file_handle *handle = (struct file_handle *)space;
        handle->handle_bytes = 128;
        int mount;
        return name_to_handle_at(AT_FDCWD, target, handle, &mount, 0);
    }
    if (strcmp(what, "open") == 0) {
        int fd = open(target, O_RDONLY);
        if (fd >= 0) close(fd);
        return fd;
    }
    if (strcmp(what, "getenv") == 0) {
        /* Through getenv and through the whole environment the process has. */
        size_t length = strlen(target);
        for (char **entry = environ; entry && *entry; entry++) {
            if (strncmp(*entry, target, length) == 0 && (*entry)[length] == '=') return 0;
        }
        errno = ENOENT;
        return getenv(target) ? 0 : -1;
    }
    errno = EINVAL;
    return -1;
}

static int32_t tp_handle(void *instance, const char *method, json_t *params, json_t **result,
                         flowhost_error_v1 *error) {
    (void)instance; (void)error;
    if (strcmp(method, "escape.entry") == 0) {
        *result = json_pack("{sbsisi}", "opened", entry_opened == 1, "errno", entry_errno, "pid", (int)getpid());
        return FLOWHOST_OK;
    }
    if (strcmp(method, "escape.write") == 0) {
        const char *text = json_string_value(json_object_get(params, "text"));
        ssize_t wrote = text ? write(2, text, strlen(text)) : -1;
        *result = json_pack("{si}", "wrote", (int)wrote);
        return FLOWHOST_OK;
    }
    const char *what = json_string_value(json_object_get(params, "what"));
    const char *target = json_string_value(json_object_get(params, "target"));
    errno = 0;
    long rc = attempt(what ? what : "", target);
    int failure = rc < 0 ? errno : 0;
    *result = json_pack("{sbsisi}", "done", rc >= 0, "errno", failure, "pid", (int)getpid());
    return FLOWHOST_OK;
}
