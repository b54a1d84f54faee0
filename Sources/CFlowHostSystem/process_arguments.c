#include "flowhost_system.h"

/* Written once, by the initialiser below, before main; read-only after. */
static int captured_argc;
static char **captured_argv;

/* glibc (and Darwin's dyld) call each initialiser with argc, argv and envp. */
__attribute__((constructor)) static void flowhost_capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    captured_argc = argc;
    captured_argv = argv;
}

int flowhost_process_argc(void) { return captured_argc; }

char **flowhost_process_argv(void) { return captured_argv; }
