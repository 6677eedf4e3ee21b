/*
 * The server of fanout.sh's workload A: HTTP/1.1 on 127.0.0.1 that answers every request DELAY_MS
 * (default 100) after it arrived, with a small JSON body on a kept-alive connection. One thread,
 * epoll, nothing blocking: ten thousand connections each waiting for its answer cost it a few
 * hundred bytes each, so the clients, not the server, set the pace.
 *
 *   delay_server PORT_FILE STATS_FILE [DELAY_MS]
 *
 * It listens on an ephemeral port of 127.0.0.1 and writes the port to PORT_FILE once it accepts.
 * On SIGTERM or SIGINT it writes one JSON line to STATS_FILE and exits:
 *   {"accepted":…,"requests":…,"peak_open":…,"errors":…}
 * accepted: connections accepted over its life (the connections a client used); requests:
 * responses sent; peak_open: the most connections open at once; errors: failed accepts and writes.
 *
 * The delay is the same for every request, so the answers fall due in the order the requests
 * arrived: the timer is a FIFO queue and one timerfd armed for its head.
 *
 * Build: gcc -O2 -o delay_server delay_server.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_MAX 8192

static const char body[] =
    "{\"id\":42,\"name\":\"HTTPTransport benchmark\",\"tags\":[\"swift\",\"libcurl\"],\"ok\":true,\"score\":0.95}";

struct connection {
    unsigned generation; /* bumped when the descriptor closes: queued answers for it are stale */
    int open;
    int waiting;         /* a request is waiting for its answer */
    size_t length;       /* bytes of buffer read and not yet answered */
    char buffer[REQUEST_MAX];
};

struct due {
    long long at_ns;
    int fd;
    unsigned generation;
    struct due *next;
};

static struct connection **connections; /* by descriptor */
static int connection_slots;
static struct due *head, *tail;
static volatile sig_atomic_t stopping;
static long long delay_ns;
static long long accepted, requests, errors, open_now, peak_open;
static char response[512];
static size_t response_length;

static long long now_ns(void) {
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (long long)spec.tv_sec * 1000000000LL + spec.tv_nsec;
}

static void on_signal(int signal_number) {
    (void)signal_number;
    stopping = 1;
}

static void arm(int timer) {
    struct itimerspec spec = {0};
    if (head != NULL) {
        spec.it_value.tv_sec = head->at_ns / 1000000000LL;
        spec.it_value.tv_nsec = head->at_ns % 1000000000LL;
    }
    timerfd_settime(timer, TFD_TIMER_ABSTIME, &spec, NULL); /* all zero disarms */
}

static void close_connection(int epoll, int fd) {
    struct connection *connection = connections[fd];
    epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
    close(fd);
    connection->open = 0;
    connection->waiting = 0;
    connection->length = 0;
    connection->generation++;
    open_now--;
}

/* Queues the answer to the request at the start of the buffer, if one has arrived whole: due
 * delay_ns from now. */
static void schedule_if_complete(int fd) {
    struct connection *connection = connections[fd];
    if (connection->waiting || memmem(connection->buffer, connection->length, "\r\n\r\n", 4) == NULL) return;
    struct due *entry = malloc(sizeof *entry);
    if (entry == NULL) { errors++; return; }
    entry->at_ns = now_ns() + delay_ns;
    entry->fd = fd;
    entry->generation = connection->generation;
    entry->next = NULL;
    connection->waiting = 1;
    if (tail != NULL) tail->next = entry; else head = entry;
    tail = entry;
}

static void accept_all(int epoll, int listener) {
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) errors++;
            return;
        }
        if (fd >= connection_slots) { errors++; close(fd); continue; }
        if (connections[fd] == NULL && (connections[fd] = calloc(1, sizeof(struct connection))) == NULL) {
            errors++;
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data.fd = fd};
        connections[fd]->open = 1;
        connections[fd]->length = 0;
        connections[fd]->waiting = 0;
        epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
        accepted++;
        if (++open_now > peak_open) peak_open = open_now;
    }
}

static void read_from(int epoll, int fd) {
    struct connection *connection = connections[fd];
    for (;;) {
        if (connection->length == REQUEST_MAX) { errors++; close_connection(epoll, fd); return; }
        ssize_t count = read(fd, connection->buffer + connection->length, REQUEST_MAX - connection->length);
        if (count > 0) { connection->length += (size_t)count; continue; }
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (count < 0 && errno == EINTR) continue;
        close_connection(epoll, fd); /* end of stream or an error: the client is gone */
        return;
    }
    schedule_if_complete(fd);
}

/* Answers every request that is due, oldest first, then queues a pipelined next one. */
static void answer_due(int epoll) {
    long long now = now_ns();
    while (head != NULL && head->at_ns <= now) {
        struct due *entry = head;
        head = entry->next;
        if (head == NULL) tail = NULL;
        int fd = entry->fd;
        struct connection *connection = connections[fd];
        if (connection != NULL && connection->open && connection->generation == entry->generation) {
            char *end = memmem(connection->buffer, connection->length, "\r\n\r\n", 4);
            size_t used = end != NULL ? (size_t)(end - connection->buffer) + 4 : connection->length;
            memmove(connection->buffer, connection->buffer + used, connection->length - used);
            connection->length -= used;
            connection->waiting = 0;
            ssize_t sent = send(fd, response, response_length, MSG_NOSIGNAL);
            if (sent != (ssize_t)response_length) {
                errors++;
                close_connection(epoll, fd);
            } else {
                requests++;
                schedule_if_complete(fd); /* a pipelined request */
            }
        }
        free(entry);
    }
}

static int listen_on_loopback(const char *port_file) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 65535) != 0
        || getsockname(listener, (struct sockaddr *)&address, &length) != 0) {
        perror("delay_server: listen");
        exit(1);
    }
    FILE *file = fopen(port_file, "w");
    if (file == NULL) { perror(port_file); exit(1); }
    fprintf(file, "%d\n", ntohs(address.sin_port));
    fclose(file);
    return listener;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: delay_server PORT_FILE STATS_FILE [DELAY_MS]\n");
        return 2;
    }
    delay_ns = (argc > 3 ? atoll(argv[3]) : 100) * 1000000LL;
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max; /* as many connections as this process may have */
    setrlimit(RLIMIT_NOFILE, &limit);
    connection_slots = (int)(limit.rlim_cur > 1048576 ? 1048576 : limit.rlim_cur);
    connections = calloc((size_t)connection_slots, sizeof *connections);
    response_length = (size_t)snprintf(response, sizeof response,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", strlen(body), body);

    struct sigaction action = {.sa_handler = on_signal}; /* no SA_RESTART: epoll_wait returns EINTR */
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    signal(SIGPIPE, SIG_IGN);

    int epoll = epoll_create1(EPOLL_CLOEXEC);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    int listener = listen_on_loopback(argv[1]);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    event.data.fd = timer;
    epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &event);

    struct epoll_event events[1024];
    while (!stopping) {
        int count = epoll_wait(epoll, events, 1024, -1);
        for (int index = 0; index < count; index++) {
            int fd = events[index].data.fd;
            if (fd == listener) {
                accept_all(epoll, listener);
            } else if (fd == timer) {
                unsigned long long expirations;
                if (read(timer, &expirations, sizeof expirations) < 0) { /* spurious: nothing to read */ }
            } else if (connections[fd] != NULL && connections[fd]->open) {
                read_from(epoll, fd);
            }
        }
        answer_due(epoll);
        arm(timer);
    }

    FILE *stats = fopen(argv[2], "w");
    if (stats == NULL) { perror(argv[2]); return 1; }
    fprintf(stats, "{\"accepted\":%lld,\"requests\":%lld,\"peak_open\":%lld,\"errors\":%lld}\n",
            accepted, requests, peak_open, errors);
    fclose(stats);
    return 0;
}
