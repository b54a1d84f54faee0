/* A diagnostic preloaded into one host by scripts/first-writes.sh: which
   code first writes each page of an image's zero-initialised data (the
   anonymous mapping after the image named by FIRST_WRITES_IMAGE). Such a
   page is memory in every host once anything writes it (docs/performance.md,
   "The start path"). The pages not yet resident are made read-only; the first
   write to one faults, and the handler appends the page, the address and
   the return addresses on the stack to FIRST_WRITES_OUT, then makes the
   page writable and lets the write run again. Not part of any build. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uintptr_t low, high;
static int out = -1;

static void record(const char *text, int length) {
    if (length > 0) (void)!write(out, text, (size_t)length);
}

static void first_write(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    uintptr_t address = (uintptr_t)info->si_addr;
    if (address < low || address >= high) {
        /* Not ours: the default action, as if this handler were not here. */
        signal(signal_number, SIG_DFL);
        return;
    }
    uintptr_t page = address & ~(uintptr_t)4095;
    char line[64];
    record(line, snprintf(line, sizeof line, "PAGE %lx ADDR %lx\n", (unsigned long)page, (unsigned long)address));
    void *frames[24];
    int depth = backtrace(frames, 24);
    for (int i = 0; i < depth; i++) record(line, snprintf(line, sizeof line, " %lx", (unsigned long)(uintptr_t)frames[i]));
    record("\n", 1);
    mprotect((void *)page, 4096, PROT_READ | PROT_WRITE);
}

__attribute__((constructor)) static void protect_pages(void) {
    const char *image = getenv("FIRST_WRITES_IMAGE");
    const char *path = getenv("FIRST_WRITES_OUT");
    if (image == NULL || path == NULL) return;
    out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) return;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) return;
    char line[512];
    int after_image = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char permissions[8], name[300] = "";
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %299s", &start, &end, permissions, name) < 3) continue;
        if (strstr(name, image) != NULL) {
            after_image = 1;
            continue;
        }
        if (after_image) {
            if (name[0] == '\0' && permissions[1] == 'w') {
                low = start;
                high = end;
            }
            break;
        }
    }
    fclose(maps);
    char text[64];
    record(text, snprintf(text, sizeof text, "RANGE %lx %lx\n", (unsigned long)low, (unsigned long)high));
    if (low == 0) return;
    /* The unwinder loads on first use; load it now, not inside the handler. */
    void *warm[2];
    backtrace(warm, 2);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = first_write;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &action, NULL);
    /* Pages written before this ran (the runtime's own initialisers) stay as they are. */
    for (uintptr_t page = low; page < high; page += 4096) {
        unsigned char resident = 0;
        if (mincore((void *)page, 4096, &resident) == 0 && !(resident & 1)) mprotect((void *)page, 4096, PROT_READ);
    }
}
