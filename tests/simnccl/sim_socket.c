/* sim_socket.c - loopback sockets with deadlines. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sim_socket.h"

int64_t sim_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t sim_deadline_after(double seconds)
{
    if (seconds <= 0 || seconds > 1e9)
        return INT64_MAX;
    return sim_now_ns() + (int64_t)(seconds * 1e9);
}

int sim_socket_nonblock(int fd)
{
    int flags = fcntl(fd, F_GETFL);

    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

/* Milliseconds poll may sleep before the deadline (at least 1 when any
 * time is left, so a sub-millisecond rest does not spin). */
static int poll_ms(int64_t deadline_ns)
{
    int64_t left;

    if (deadline_ns == INT64_MAX)
        return 1000;
    left = deadline_ns - sim_now_ns();
    if (left <= 0)
        return 0;
    return left > 1000000000 ? 1000 : (int)((left + 999999) / 1000000);
}

static int wait_fd(int fd, short events, int64_t deadline_ns)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int ms = poll_ms(deadline_ns);
        int n;

        if (ms == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        n = poll(&p, 1, ms);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

static struct sockaddr_in loopback(uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return a;
}

int sim_socket_listen(uint16_t *port)
{
    struct sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

static void tune(int fd)
{
    int one = 1;

    /* Small control messages must not wait for Nagle; data is large. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int sim_socket_connect(uint16_t port, int64_t deadline_ns)
{
    struct sockaddr_in a = loopback(port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int err = 0;
    socklen_t len = sizeof err;

    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (errno != EINPROGRESS)
            goto fail;
        if (wait_fd(fd, POLLOUT, deadline_ns) != 0)
            goto fail;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            goto fail;
        if (err) {
            errno = err;
            goto fail;
        }
    }
    tune(fd);
    return fd;
fail:
    err = errno;
    close(fd);
    errno = err;
    return -1;
}

int sim_socket_accept(int listen_fd, int64_t deadline_ns)
{
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            tune(fd);
            return fd;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
            errno != ECONNABORTED)
            return -1;
        if (wait_fd(listen_fd, POLLIN, deadline_ns) != 0)
            return -1;
    }
}

int sim_socket_send_all(int fd, const void *buf, size_t len,
                        int64_t deadline_ns)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        if (wait_fd(fd, POLLOUT, deadline_ns) != 0)
            return -1;
    }
    return 0;
}

int sim_socket_recv_all(int fd, void *buf, size_t len, int64_t deadline_ns)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0) {
            errno = ECONNRESET;
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        if (wait_fd(fd, POLLIN, deadline_ns) != 0)
            return -1;
    }
    return 0;
}
