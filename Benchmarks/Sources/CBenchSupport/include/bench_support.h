#ifndef BENCH_SUPPORT_H
#define BENCH_SUPPORT_H
#include <stdint.h>
#include <sys/types.h>

/* Pins the calling thread to one CPU; returns 0 on success. */
int bench_pin_to_cpu(int cpu);
/* Allows the calling thread every CPU again. */
int bench_unpin(void);
/* Nanoseconds on the monotonic clock. */
uint64_t bench_now_ns(void);
/* Starts argv with pipes for stdin and stdout; pins the child to `cpu`
   when cpu >= 0. Returns the pid, or -1. */
pid_t bench_spawn(char *const argv[], int cpu, int *to_child, int *from_child, int quiet_stderr);
/* Runs argv to its end with stdin, stdout and stderr on /dev/null and every
   other descriptor closed (a server it daemonizes, such as pg_ctl's, must
   not hold this process's pipes); extra_env ("NAME=value" or NULL) is
   added to the environment. Returns the exit status, or -1. */
int bench_run(char *const argv[], const char *extra_env);
#endif
