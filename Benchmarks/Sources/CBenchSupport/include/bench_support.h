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
#endif
