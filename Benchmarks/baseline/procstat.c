/*
 * fanout.sh's watcher: runs a client as its child, samples its thread count every 5 ms while it
 * runs, kills it after TIMEOUT seconds, and writes what it saw as one JSON line to OUT_FILE:
 *
 *   procstat TIMEOUT OUT_FILE COMMAND [ARGUMENT...]
 *   {"peak_threads":…,"maxrss_kib":…,"exit":…,"timed_out":true|false,"wall":…}
 *
 * peak_threads: the most threads seen in /proc/PID/status; maxrss_kib: the child's peak resident
 * set (wait4's ru_maxrss, whole process); exit: its exit status (128 + signal when killed).
 * The child's standard output and error pass through.
 *
 * Build: gcc -O2 -o procstat procstat.c
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc_status.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: procstat TIMEOUT OUT_FILE COMMAND [ARGUMENT...]\n");
        return 2;
    }
    double timeout = atof(argv[1]);
    double start = now();
    pid_t child = fork();
    if (child < 0) { perror("procstat: fork"); return 1; }
    if (child == 0) {
        execvp(argv[3], argv + 3);
        perror(argv[3]);
        _exit(127);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)child);
    long peak = 0;
    int status = 0, timed_out = 0;
    struct rusage usage = {0};
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = 5000000};
    for (;;) {  /* ends when the child does; the child is killed at the time-out */
        pid_t done = wait4(child, &status, WNOHANG, &usage);
        if (done == child) break;
        if (done < 0) { perror("procstat: wait4"); return 1; }
        long threads = status_field(path, "Threads:");
        if (threads > peak) peak = threads;
        if (!timed_out && now() - start > timeout) {
            timed_out = 1;
            kill(child, SIGKILL);
        }
        nanosleep(&pause, NULL);
    }
    int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *out = fopen(argv[2], "w");
    if (out == NULL) { perror(argv[2]); return 1; }
    fprintf(out, "{\"peak_threads\":%ld,\"maxrss_kib\":%ld,\"exit\":%d,\"timed_out\":%s,\"wall\":%.3f}\n",
            peak, usage.ru_maxrss, exit_status, timed_out ? "true" : "false", now() - start);
    fclose(out);
    return exit_status;
}
