/*
 * What the C programs of the benchmarks share: the monotonic clock and the fields of
 * /proc/PID/status (curl_baseline.c, fanout_multi.c, procstat.c).
 */
#ifndef PROC_STATUS_H
#define PROC_STATUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic seconds. */
static inline double now(void) {
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (double)spec.tv_sec + (double)spec.tv_nsec / 1e9;
}

/* A field of a status file ("Threads:", or "VmHWM:" in KiB), 0 when it cannot be read. */
static inline long status_field(const char *path, const char *field) {
    FILE *status = fopen(path, "r");
    char line[256];
    long value = 0;
    size_t length = strlen(field);
    if (status == NULL) return 0;
    while (fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, field, length) == 0) {
            value = strtol(line + length, NULL, 10);
            break;
        }
    }
    fclose(status);
    return value;
}

/* A field of this process's status in KiB ("VmHWM:" peak resident set, "VmRSS:" resident now). */
static inline long status_kib(const char *field) { return status_field("/proc/self/status", field); }

#endif
